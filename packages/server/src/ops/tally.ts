/**
 * The series a fire updates, counted in plain numbers and turned into prom-client's exposition only
 * when `/metrics` is read.
 *
 * prom-client's `observe` and `inc` take a labels object each call, check and hash it into a string,
 * build a closure and two objects, and find the bucket through a property keyed by the bound (a
 * number made a string): a fire's five updates (fires, lateness, the `run` call's duration, its
 * result, its claim's lead) cost the server's thread 2–3 µs and a few hundred bytes a fire, about a
 * twentieth of its CPU at 10,000 fires a second (docs/benchmarks.md). Here an update is a `Map` look-up
 * by the one label's value, a bucket found by comparison and three additions; the exposition is the
 * one prom-client writes for the same observations (`ops-tally.test.ts` compares them).
 *
 * @example
 * const lateness = new TalliedHistogram({ name: 'tickwheel_fire_lateness_seconds', help, buckets });
 * registry.registerMetric(asMetric(lateness));
 * lateness.add(0.004);
 * const fires = new TalliedCounter({ name: 'tickwheel_fires_total', help, labelName: 'trigger_type' });
 * registry.registerMetric(fires);
 * fires.add('CRON');
 */
import { Counter, type Metric } from 'prom-client';

/** One series of a tallied histogram: its observations by bucket (not cumulative), their sum and count. */
interface Series {
  counts: Float64Array;
  sum: number;
  count: number;
}

/** One value of the exposition: what prom-client's registry writes as a line. */
interface ExpositionValue {
  labels: Record<string, string | number>;
  /** The series' own labels, written after `labels` (prom-client's histograms give them apart). */
  sharedLabels: Record<string, string>;
  value: number;
  metricName: string;
}

/** What a registry reads of a metric (`get`, or `getForPromString` when there is one). */
interface Exposition {
  name: string;
  help: string;
  type: 'histogram';
  values: ExpositionValue[];
  aggregator: 'sum';
}

/**
 * A histogram with at most one label, observed through `add`. prom-client's registry takes any
 * object that gives its name and values the way its own metrics do (`registerMetric`; its type
 * names only its own classes, hence the `asMetric` cast where it is registered).
 */
export class TalliedHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly bounds: Float64Array;
  private readonly labelName: string | undefined;
  /** By the label's value; '' for a histogram without a label. */
  private readonly series = new Map<string, Series>();

  constructor(config: { name: string; help: string; buckets: readonly number[]; labelName?: string }) {
    this.name = config.name;
    this.help = config.help;
    this.bounds = Float64Array.from(config.buckets).sort();
    this.labelName = config.labelName;
  }

  /**
   * One observation of the series whose label is `labelValue` (none for a histogram without a
   * label). A value that is not a finite number is left out (prom-client throws on it, which here
   * would throw into a fire's dispatch).
   */
  add(value: number, labelValue = ''): void {
    if (!Number.isFinite(value)) return;
    let series = this.series.get(labelValue);
    if (series === undefined) {
      series = { counts: new Float64Array(this.bounds.length), sum: 0, count: 0 };
      this.series.set(labelValue, series);
    }
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    if (i < bounds.length) series.counts[i]!++;
    series.sum += value;
    series.count++;
  }

  reset(): void {
    this.series.clear();
  }

  /** The values as the registry writes them: cumulative buckets, `+Inf`, sum and count a series. */
  async getForPromString(): Promise<Exposition> {
    const bucketName = `${this.name}_bucket`;
    const values: ExpositionValue[] = [];
    for (const [labelValue, series] of this.series) {
      const sharedLabels: Record<string, string> =
        this.labelName === undefined ? {} : { [this.labelName]: labelValue };
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += series.counts[i]!;
        values.push({
          labels: { le: this.bounds[i]! },
          sharedLabels,
          value: cumulative,
          metricName: bucketName,
        });
      }
      values.push({ labels: { le: '+Inf' }, sharedLabels, value: series.count, metricName: bucketName });
      values.push({ labels: {}, sharedLabels, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The values with each series' label among the labels, as prom-client's `get` gives them (JSON). */
  async get(): Promise<Omit<Exposition, 'values'> & { values: Omit<ExpositionValue, 'sharedLabels'>[] }> {
    const metric = await this.getForPromString();
    return {
      ...metric,
      values: metric.values.map(({ labels, sharedLabels, value, metricName }) => ({
        labels: { ...labels, ...sharedLabels },
        value,
        metricName,
      })),
    };
  }
}

/** A tallied histogram as the registry's `registerMetric` is typed to take it. */
export function asMetric(histogram: TalliedHistogram): Metric {
  return histogram as unknown as Metric;
}

/**
 * A counter with one label, counted up through `add`. It is a prom-client `Counter`: the counts
 * made since the last read go into it when it is read (its `collect`).
 */
export class TalliedCounter<T extends string> extends Counter<T> {
  /** Counts not yet in the counter, by the label's value. */
  private readonly pending: Map<string | number, number>;

  constructor(config: { name: string; help: string; labelName: T }) {
    const pending = new Map<string | number, number>();
    super({
      name: config.name,
      help: config.help,
      labelNames: [config.labelName],
      registers: [],
      collect(this: Counter<T>) {
        for (const [labelValue, count] of pending) {
          this.inc({ [config.labelName]: String(labelValue) } as Partial<Record<T, string>>, count);
        }
        pending.clear();
      },
    });
    this.pending = pending;
  }

  /** One more of the series whose label is `labelValue` (a number is written as its decimal text). */
  add(labelValue: string | number): void {
    this.pending.set(labelValue, (this.pending.get(labelValue) ?? 0) + 1);
  }
}
