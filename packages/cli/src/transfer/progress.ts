/**
 * A progress bar for long imports, on stderr and only when stderr is a terminal: piped or
 * logged output stays free of control characters.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

/** Imports shorter than this finish before a bar would tell anyone anything. */
const MIN_ITEMS_FOR_A_BAR = 20;

export function createProgress(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return { update() {}, stop() {} };
  let bar: cliProgress.SingleBar | undefined;
  return {
    update(done, total) {
      if (bar === undefined) {
        if (total < MIN_ITEMS_FOR_A_BAR) return;
        bar = new cliProgress.SingleBar(
          {
            stream,
            format: `${label} [{bar}] {value}/{total} {percentage}% | {duration_formatted}`,
            clearOnComplete: true,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(total, done);
        return;
      }
      bar.update(done);
    },
    stop() {
      bar?.stop();
    },
  };
}
