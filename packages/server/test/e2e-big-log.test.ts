import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LOG_PAGE_LIMITS } from '../src/dispatch/log-page.js';
import {
  callServer,
  createApp,
  createJob,
  type E2eServer,
  registerAddress,
  startServer,
} from './helpers/e2e.js';
import { startMimic, type XxlMimic } from './helpers/xxl-mimic.js';

const API_TOKEN = 'e2e-api-token-0123456789abcdef';

let server: E2eServer | undefined;
let mimic: XxlMimic | undefined;

afterEach(async () => {
  await mimic?.stop();
  await server?.close();
  server = undefined;
  mimic = undefined;
});

interface FireLogPage {
  fromLineNum: number;
  toLineNum: number;
  logContent: string;
  isEnd: boolean;
}

async function getFireLog(fireId: number, fromLineNum: number): Promise<FireLogPage> {
  const response = await fetch(`${server!.server.url}api/v1/fires/${fireId}/log?fromLineNum=${fromLineNum}`, {
    headers: { authorization: `Bearer ${API_TOKEN}` },
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as FireLogPage;
}

/**
 * 20,000 short lines, then 1,800 lines of 3,000 bytes: 5.5 MiB in all, more than an executor
 * answer may be, with stretches where the line limit and stretches where the byte limit ends a page.
 */
function bigLog(): string[] {
  const lines: string[] = [];
  for (let i = 1; i <= 20_000; i++) lines.push(`short line ${i}`);
  for (let i = 1; i <= 1_800; i++) lines.push(`long line ${i} ${'x'.repeat(3_000)}`);
  return lines;
}

describe('a run log larger than an executor answer may be', () => {
  it('is read from line 1 page by page through the API, every line exactly once, in bounded pages', async () => {
    server = await startServer({ apiToken: API_TOKEN });
    // An XXL-JOB 2.x executor: it answers `log` with the whole file from fromLineNum, isEnd false, as text/html.
    mimic = await startMimic({ generation: '2.x', accessToken: server.server.accessToken });
    const lines = bigLog();
    mimic.logLines = lines;
    const wholeAnswer = JSON.stringify({ code: 200, content: { logContent: lines.join('\n') } });
    expect(Buffer.byteLength(wholeAnswer)).toBeGreaterThan(5 * 1024 * 1024);
    await registerAddress(server.server, 'big-log', mimic.address);
    const appId = await createApp(server.store, 'big-log');
    const job = await createJob(server.store, {
      app_id: appId,
      name: 'writes a big log',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'big',
    });
    const { fireId } = await server.server.triggerJob({ jobId: job.id });

    const read: string[] = [];
    const pages: FireLogPage[] = [];
    let from = 1;
    for (;;) {
      const page = await getFireLog(fireId, from);
      pages.push(page);
      expect(page.fromLineNum).toBe(from);
      // The run is going on: the log is never over yet.
      expect(page.isEnd).toBe(false);
      if (page.toLineNum < from) break;
      const got = page.logContent.split('\n');
      expect(got.pop()).toBe('');
      expect(got.length).toBe(page.toLineNum - from + 1);
      expect(got.length).toBeLessThanOrEqual(DEFAULT_LOG_PAGE_LIMITS.maxLines);
      expect(Buffer.byteLength(page.logContent)).toBeLessThanOrEqual(DEFAULT_LOG_PAGE_LIMITS.maxBytes);
      read.push(...got);
      from = page.toLineNum + 1;
    }
    expect(read).toEqual(lines);
    // Both limits ended pages: full pages of short lines, then pages of long lines near 1 MiB.
    expect(pages.some((p) => p.toLineNum - p.fromLineNum + 1 === DEFAULT_LOG_PAGE_LIMITS.maxLines)).toBe(
      true,
    );
    expect(
      pages.some((p) => Buffer.byteLength(p.logContent) > DEFAULT_LOG_PAGE_LIMITS.maxBytes - 3_100),
    ).toBe(true);

    // Once the run has finished, a read that brings nothing new ends the log.
    await callServer(server.server, 'callback', [
      { logId: fireId, logDateTim: Date.now(), handleCode: 200, handleMsg: null },
    ]);
    expect(await getFireLog(fireId, from)).toMatchObject({ fromLineNum: from, logContent: '', isEnd: true });
    // A finished run's log read from a line with a whole page behind it is not over.
    expect((await getFireLog(fireId, 1)).isEnd).toBe(false);
  });
});
