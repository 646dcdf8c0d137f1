/**
 * A process's allocations, sampled through the inspector (one in every 32 KiB allocated) from the
 * start to the stop and written to `<name>-<pid>.heapprofile` in `folder`: the server's with
 * `TW_BENCH_HEAP_PROFILE=<folder>`, the executors' with `TW_BENCH_EXECUTOR_HEAP_PROFILE=<folder>`.
 * Every sample is kept, whether or not a collection took it since: where the process allocates.
 * With `TW_BENCH_HEAP_PROFILE_PROMOTED=1` a sample a minor collection took is dropped, so what is
 * left is what lived long enough to be promoted to the old generation (or lives at the stop):
 * what the major collections have to mark and sweep. `heap-summary.js` sums a profile per function.
 * (`node --heap-prof` keeps only what is alive at the exit.)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

/** Starts sampling when `folder` is set; the function returned stops it and writes the profile. */
export async function startHeapProfiler(
  folder: string | undefined,
  name: string,
): Promise<(() => Promise<void>) | undefined> {
  if (!folder) return undefined;
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 32_768,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: process.env.TW_BENCH_HEAP_PROFILE_PROMOTED !== '1',
  });
  return async () => {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, `${name}-${process.pid}.heapprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}
