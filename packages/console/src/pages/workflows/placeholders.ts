/** The workflow param placeholders as text, for the hints that show them (they are no templates here). */
/** `placeholder('run.param')` is `${run.param}`. */
export function placeholder(path: string): string {
  return `\${${path}}`;
}
