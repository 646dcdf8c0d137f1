/**
 * Signal handling of the long-running commands: the first SIGINT or SIGTERM stops gracefully
 * (the executor finishes or stops its runs, flushes results and says goodbye to its servers),
 * a second one exits at once for the impatient operator.
 */
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
/** Exit code of a process ended by a signal, as shells report it. */
const SIGNAL_EXIT_CODES: Record<(typeof SIGNALS)[number], number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Calls `stop` on the first SIGINT/SIGTERM, then exits 0 (1 if `stop` failed); exits at once on
 * a second signal.
 */
export function stopOnSignals(stop: () => Promise<void>, say: (line: string) => void = console.log): void {
  let stopping = false;
  for (const signal of SIGNALS) {
    process.on(signal, () => {
      if (stopping) {
        say(`${signal} again: exiting now`);
        process.exit(SIGNAL_EXIT_CODES[signal]);
      }
      stopping = true;
      say(`${signal}: stopping (send it again to exit at once)`);
      stop().then(
        () => process.exit(0),
        (err: unknown) => {
          console.error(`error: stop failed: ${err instanceof Error ? err.message : String(err)}`);
          process.exit(1);
        },
      );
    });
  }
}
