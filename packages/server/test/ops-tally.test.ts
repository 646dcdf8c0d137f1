import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { asMetric, TalliedCounter, TalliedHistogram } from '../src/ops/tally.js';

const BUCKETS = [0, 0.001, 0.005, 0.05, 0.5, 5];
/** On a bound, between bounds, below the first, past the last, and repeated. */
const VALUES = [-2, 0, 0.0004, 0.001, 0.001, 0.003, 0.05, 0.049999, 0.7, 5, 5.0001, 120, 0.003];

/** The exposition of one registry holding `metric`, as /metrics writes it, and its JSON form. */
async function exposition(register: (registry: Registry) => void) {
  const registry = new Registry();
  register(registry);
  // Without the exemplars, which tallied series do not keep (prom-client's are null when off).
  const json = JSON.parse(
    JSON.stringify(await registry.getMetricsAsJSON(), (key, value) =>
      key === 'exemplar' ? undefined : value,
    ),
  );
  return { text: await registry.metrics(), json };
}

describe('tallied series', () => {
  it('a histogram without a label writes what prom-client writes for the same observations', async () => {
    const own = await exposition((registry) => {
      const h = new Histogram({ name: 'tw_h', help: 'h help', buckets: BUCKETS, registers: [registry] });
      for (const v of VALUES) h.observe(v);
    });
    const tallied = await exposition((registry) => {
      const h = new TalliedHistogram({ name: 'tw_h', help: 'h help', buckets: BUCKETS });
      registry.registerMetric(asMetric(h));
      for (const v of VALUES) h.add(v);
    });
    expect(tallied.text).toBe(own.text);
    expect(tallied.json).toEqual(own.json);
    expect(tallied.text).toContain('tw_h_bucket{le="0.001"} 5');
    expect(tallied.text).toContain('tw_h_bucket{le="+Inf"} 13');
  });

  it('a histogram with a label keeps a series a value, in the order they came', async () => {
    const own = await exposition((registry) => {
      const h = new Histogram({
        name: 'tw_l',
        help: 'l',
        labelNames: ['lane'],
        buckets: BUCKETS,
        registers: [registry],
      });
      VALUES.forEach((v, i) => {
        h.observe({ lane: i % 3 === 0 ? 'slow' : 'fast' }, v);
      });
    });
    const tallied = await exposition((registry) => {
      const h = new TalliedHistogram({ name: 'tw_l', help: 'l', labelName: 'lane', buckets: BUCKETS });
      registry.registerMetric(asMetric(h));
      VALUES.forEach((v, i) => {
        h.add(v, i % 3 === 0 ? 'slow' : 'fast');
      });
    });
    expect(tallied.text).toBe(own.text);
    expect(tallied.json).toEqual(own.json);
    expect(tallied.text).toContain('tw_l_count{lane="slow"} 5');
  });

  it('leaves out a value that is not a finite number, where prom-client throws', async () => {
    const h = new TalliedHistogram({ name: 'tw_n', help: 'n', buckets: BUCKETS });
    h.add(Number.NaN);
    h.add(Number.POSITIVE_INFINITY);
    h.add(0.002);
    const registry = new Registry();
    registry.registerMetric(asMetric(h));
    const text = await registry.metrics();
    expect(text).toContain('tw_n_count 1');
    expect(text).toContain('tw_n_sum 0.002');
    expect(() => new Histogram({ name: 'tw_n2', help: 'n', registers: [] }).observe(Number.NaN)).toThrow();
  });

  it('a counter writes what prom-client writes, counted since each read and added at the next', async () => {
    const registry = new Registry();
    const c = new TalliedCounter({ name: 'tw_c_total', help: 'c', labelName: 'code' });
    registry.registerMetric(c);
    const ownRegistry = new Registry();
    const own = new Counter({
      name: 'tw_c_total',
      help: 'c',
      labelNames: ['code'],
      registers: [ownRegistry],
    });
    for (const code of [200, 500, 200, 502]) {
      c.add(code);
      own.inc({ code: String(code) });
    }
    expect(await registry.metrics()).toBe(await ownRegistry.metrics());
    c.add(200);
    own.inc({ code: '200' });
    c.add('API');
    own.inc({ code: 'API' });
    const text = await registry.metrics();
    expect(text).toBe(await ownRegistry.metrics());
    expect(text).toContain('tw_c_total{code="200"} 3');
    expect(text).toContain('tw_c_total{code="API"} 1');
    // A read adds nothing twice.
    expect(await registry.metrics()).toBe(text);
  });
});
