/**
 * A CPU hog for `--hog N`: keeps one core fully busy, to see how the scheduler copes when it
 * must share the machine. The busy loop runs in slices of ~20 ms with `setImmediate` between
 * them, so the event loop still takes the harness's `stop` and notices it going away (a plain
 * endless loop would never return to either). Sends `{type: 'ready'}` once spinning.
 *
 *   hog-process '{}'
 */
import type { HarnessMessage, HogMessage } from './messages.js';

const SLICE_MS = 20;

process.once('disconnect', () => process.exit(0));
process.on('message', (message: HarnessMessage) => {
  if (message.type === 'stop') process.exit(0);
});

/** Kept so the arithmetic is not optimised away. */
let sink = 0;

function spin(): void {
  const until = performance.now() + SLICE_MS;
  while (performance.now() < until) {
    for (let i = 1; i < 1_000; i++) sink = (sink + Math.sqrt(i) * Math.sin(sink)) % 1e9;
  }
  setImmediate(spin);
}

spin();
send({ type: 'ready' });

function send(message: HogMessage): void {
  process.send?.(message);
}
