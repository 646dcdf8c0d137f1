/**
 * Lateness histograms. The reports monitor reads a day's lateness from the database already
 * grouped into fine buckets (exact below 1 s, 100 ms up to a minute, 10 s beyond: a bounded
 * number of rows however many fires the day had), takes the day's p50/p99 from them, and keeps
 * them folded into coarse buckets (exact below 10 ms, then about 5 % wide) in the report row.
 * The dashboard merges the coarse buckets of several days or apps, so a total over 30 days is a
 * true percentile of all those fires, to within a bucket's width, not an average of averages.
 */

/** Sparse buckets, `[lowerBoundMs, count]`, ascending by bound. */
export type Histogram = Array<[number, number]>;

/** The lateness of a fine bucket is its lower bound; the SQL that groups by it (see store/reports.ts). */
export const FINE_BUCKET_SQL = {
  exactBelowMs: 1_000,
  mediumBelowMs: 60_000,
  mediumWidthMs: 100,
  wideWidthMs: 10_000,
} as const;

const LONGEST_BOUND_MS = 86_400_000;

/** Coarse lower bounds: 0..9 exact, then each about 5 % above the last, up to a day. */
const COARSE_BOUNDS: readonly number[] = (() => {
  const bounds: number[] = [];
  for (let b = 0; b < 10; b++) bounds.push(b);
  let b = 10;
  while (b <= LONGEST_BOUND_MS) {
    bounds.push(b);
    b = Math.max(b + 1, Math.floor(b * 1.05));
  }
  return bounds;
})();

/** The coarse bucket `ms` falls in, as its lower bound. */
export function coarseBound(ms: number): number {
  let lo = 0;
  let hi = COARSE_BOUNDS.length - 1;
  if (ms <= 0) return 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (COARSE_BOUNDS[mid]! <= ms) lo = mid;
    else hi = mid - 1;
  }
  return COARSE_BOUNDS[lo]!;
}

/** Folds buckets into coarse ones (fine buckets of a day, or coarse ones being merged). */
export function coarsen(buckets: Iterable<readonly [number, number]>): Histogram {
  const counts = new Map<number, number>();
  for (const [bound, count] of buckets) {
    const coarse = coarseBound(bound);
    counts.set(coarse, (counts.get(coarse) ?? 0) + count);
  }
  return [...counts.entries()].sort((a, b) => a[0] - b[0]);
}

/** Every bucket of every histogram, added up. */
export function mergeHistograms(histograms: Iterable<Histogram>): Histogram {
  return coarsen(
    (function* () {
      for (const histogram of histograms) yield* histogram;
    })(),
  );
}

export function histogramCount(histogram: Histogram): number {
  return histogram.reduce((sum, [, count]) => sum + count, 0);
}

/**
 * The nearest-rank percentile (`p` in (0, 1]): the bucket holding the ⌈p·n⌉-th smallest value,
 * as its lower bound; null when the histogram is empty.
 */
export function percentile(histogram: Histogram, p: number): number | null {
  const total = histogramCount(histogram);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (const [bound, count] of histogram) {
    seen += count;
    if (seen >= rank) return bound;
  }
  return histogram[histogram.length - 1]![0];
}

export function encodeHistogram(histogram: Histogram): string {
  return JSON.stringify(histogram);
}

/** Reads a stored histogram; a damaged one reads as empty rather than breaking the dashboard. */
export function decodeHistogram(text: string): Histogram {
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (entry): entry is [number, number] =>
        Array.isArray(entry) && typeof entry[0] === 'number' && typeof entry[1] === 'number',
    );
  } catch {
    return [];
  }
}
