import { describe, expect, test } from 'vitest';
import { CRON_CACHE_SIZE, cachedCronCount } from '../src/schedule/cron-schedule.js';
import { nextFireTimes, type Schedule } from '../src/schedule/index.js';

const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/London',
  'Australia/Sydney',
  'Asia/Kolkata',
  'Asia/Shanghai',
];

/** 100k jobs over a few hundred distinct expressions and six zones, the shape of a large XXL-JOB fleet. */
function fleet(): Schedule[] {
  const jobs: Schedule[] = [];
  for (let i = 0; i < 100_000; i++) {
    const expression =
      i % 2 === 0 ? `${i % 60} 0/5 * * * ?` : `0 ${(i >> 1) % 60} ${(i % 100) % 24} ? * MON-FRI`;
    jobs.push({ scheduleType: 'CRON', scheduleConf: expression, timeZone: ZONES[i % ZONES.length] });
  }
  return jobs;
}

function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
}

describe('schedule parsing cache', () => {
  test('the next fire time of 100k jobs costs microseconds each, with one parse per distinct expression', () => {
    const jobs = fleet();
    const from = Date.parse('2026-03-01T00:00:00Z');
    for (const job of jobs.slice(0, 1000)) nextFireTimes(job, from, 1);
    const started = performance.now();
    for (const job of jobs) nextFireTimes(job, from, 1);
    const microsPerJob = ((performance.now() - started) * 1000) / jobs.length;
    console.log(`next fire time: ${microsPerJob.toFixed(2)} µs per job`);
    expect(microsPerJob).toBeLessThan(50);
    const distinct = new Set(jobs.map((job) => job.scheduleConf)).size;
    expect(distinct).toBeLessThan(CRON_CACHE_SIZE);
    expect(cachedCronCount()).toBeLessThanOrEqual(distinct);
  });

  test('the parsed-expression cache stays bounded however many distinct expressions pass through', () => {
    const from = Date.parse('2026-03-01T00:00:00Z');
    for (let i = 0; i < CRON_CACHE_SIZE + 300; i++) {
      nextFireTimes(
        { scheduleType: 'CRON', scheduleConf: `${i % 60} ${Math.floor(i / 60) % 60} 3 * * ?` },
        from,
        1,
      );
    }
    expect(cachedCronCount()).toBe(CRON_CACHE_SIZE);
  });

  test('computing fire times starts no timer that would keep the process alive', () => {
    const before = activeTimers();
    for (let i = 0; i < 50; i++) {
      nextFireTimes(
        { scheduleType: 'CRON', scheduleConf: `0 ${i} 4 * * ?`, timeZone: 'Europe/London' },
        0,
        3,
      );
    }
    expect(activeTimers()).toBe(before);
  });
});
