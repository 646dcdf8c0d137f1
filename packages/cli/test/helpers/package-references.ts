/**
 * What an installed package points at: every relative import, `new URL(…, import.meta.url)` and
 * source map source must stay inside the package (a published package has nothing beside it), and
 * no file may name the repository it was packed from.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** Relative module specifiers and URLs in JS and TS: `from './x.js'`, `import('../y.js')`, `new URL('./z', …)`. */
const RELATIVE_REFERENCE =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bnew URL\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]*)['"]/gm;
const CODE_FILE = /\.(?:[cm]?js|[cm]?ts)$/;

/** The problems found in the installed package at `packageDir`, one line each; none is good. */
export function outsideReferences(packageDir: string, repoRoot: string): string[] {
  const problems: string[] = [];
  const root = realpathSync(packageDir);
  for (const file of filesUnder(root, problems)) {
    const text = readFileSync(file, 'utf8');
    const where = path.relative(root, file);
    if (text.includes(repoRoot.replace(/\/$/, '')))
      problems.push(`${where} names the repository ${repoRoot}`);
    if (file.endsWith('.map')) problems.push(...mapProblems(file, where, text, root));
    else if (CODE_FILE.test(file)) {
      for (const match of text.matchAll(RELATIVE_REFERENCE)) {
        const target = path.resolve(path.dirname(file), match[1]!);
        if (!inside(root, target)) problems.push(`${where} points outside the package: ${match[1]}`);
      }
    }
  }
  return problems;
}

/** Every file of the package; a symbolic link is a problem (a tarball installs real files). */
function filesUnder(dir: string, problems: string[]): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.name === 'node_modules') continue; // its own dependencies, checked on their own
    if (lstatSync(full).isSymbolicLink()) problems.push(`${full} is a symbolic link`);
    else if (entry.isDirectory()) files.push(...filesUnder(full, problems));
    else files.push(full);
  }
  return files;
}

/** A source map's sources must be files of the package. */
function mapProblems(file: string, where: string, text: string, root: string): string[] {
  const map = JSON.parse(text) as { sourceRoot?: string; sources?: string[] };
  const base = path.resolve(path.dirname(file), map.sourceRoot ?? '');
  return (map.sources ?? []).flatMap((source) => {
    const target = path.resolve(base, source);
    if (!inside(root, target)) return [`${where} maps to a source outside the package: ${source}`];
    return exists(target) ? [] : [`${where} maps to a source the package lacks: ${source}`];
  });
}

function inside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
