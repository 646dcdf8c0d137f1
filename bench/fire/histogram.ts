/**
 * A lateness histogram in whole milliseconds: one counter per millisecond up to a minute, and
 * one for everything later. Recording a run costs an array increment, so the executors can
 * record every fire at ten thousand a second without disturbing what they measure. The counters
 * start at one second's worth and grow (doubling) only when a later value comes, so a histogram
 * per second of a long window stays small.
 */
const LAST_BUCKET_MS = 60_000;
const INITIAL_BUCKETS = 1_024;

export class Histogram {
  private counts = new Float64Array(INITIAL_BUCKETS);
  private total = 0;

  /** Counts one value; negatives count as 0, anything over a minute in the last bucket. */
  record(ms: number): void {
    const bucket = Math.min(Math.max(Math.round(ms), 0), LAST_BUCKET_MS);
    if (bucket >= this.counts.length) this.grow(bucket);
    this.counts[bucket] = (this.counts[bucket] ?? 0) + 1;
    this.total++;
  }

  /** Adds [ms, count] pairs (another histogram's `toPairs()`). */
  add(pairs: ReadonlyArray<readonly [number, number]>): void {
    for (const [ms, count] of pairs) {
      const bucket = Math.min(Math.max(ms, 0), LAST_BUCKET_MS);
      if (bucket >= this.counts.length) this.grow(bucket);
      this.counts[bucket] = (this.counts[bucket] ?? 0) + count;
      this.total += count;
    }
  }

  /** The non-empty buckets as [ms, count] pairs: compact enough to send over IPC. */
  toPairs(): Array<[number, number]> {
    const pairs: Array<[number, number]> = [];
    this.counts.forEach((count, ms) => {
      if (count > 0) pairs.push([ms, count]);
    });
    return pairs;
  }

  get count(): number {
    return this.total;
  }

  /** The smallest value at or below which `fraction` of the values lie; NaN when empty. */
  percentile(fraction: number): number {
    if (this.total === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil(fraction * this.total));
    let seen = 0;
    for (let ms = 0; ms < this.counts.length; ms++) {
      seen += this.counts[ms] ?? 0;
      if (seen >= rank) return ms;
    }
    return LAST_BUCKET_MS;
  }

  max(): number {
    for (let ms = this.counts.length - 1; ms >= 0; ms--) if ((this.counts[ms] ?? 0) > 0) return ms;
    return Number.NaN;
  }

  /** Makes room for `bucket`: doubles the counters until it fits, at most up to the last bucket. */
  private grow(bucket: number): void {
    let length = this.counts.length;
    while (length <= bucket) length *= 2;
    const counts = new Float64Array(Math.min(length, LAST_BUCKET_MS + 1));
    counts.set(this.counts);
    this.counts = counts;
  }
}
