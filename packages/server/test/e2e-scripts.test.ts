/**
 * A script job's edit, history and restore reaching a real executor: every save moves
 * `glueUpdatetime`, the executor replaces the job's lane, and the next run runs the saved script.
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createApp,
  type E2eExecutor,
  type E2eServer,
  startExecutor,
  startServer,
  tempDir,
  waitFor,
} from './helpers/e2e.js';

interface JobJson {
  id: number;
  glueUpdatedAt: number;
}

const API_TOKEN = 'tw_e2e-scripts-admin-token-0123456789';

let server: E2eServer | undefined;
let executor: E2eExecutor | undefined;
let outDir: string | undefined;

afterEach(async () => {
  await executor?.close();
  await server?.close();
  if (outDir !== undefined) await rm(outDir, { recursive: true, force: true });
  server = executor = outDir = undefined;
});

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(new URL(`api/v1${url}`, server!.server.url), {
    method,
    headers: {
      authorization: `Bearer ${API_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return (text === '' ? {} : JSON.parse(text)) as T;
}

describe('script versions end to end', () => {
  it('runs the edited script after updateJobScript, and the old one again after restoreScriptVersion', async () => {
    server = await startServer({ apiToken: API_TOKEN });
    executor = await startExecutor(server.server, 'e2e-scripts', () => {}, { enableScripts: true });
    outDir = await tempDir('tw-e2e-script-out-');
    const out = path.join(outDir, 'runs.txt');
    const appId = await createApp(server.store, 'e2e-scripts');
    const job = await call<JobJson>('POST', '/jobs', {
      appId,
      name: 'a shell script',
      glueType: 'GLUE_SHELL',
      glueSource: `echo one >> '${out}'`,
      glueRemark: 'first',
    });

    const runOnce = async () => {
      const { fireIds } = await call<{ fireIds: number[] }>('POST', `/jobs/${job.id}/trigger`, {});
      await waitFor(
        async () => (await server!.store.fires.findFireById(fireIds[0]!))?.status === 'succeeded',
        {
          what: `fire ${fireIds[0]} succeeded`,
        },
      );
    };
    const lines = async () => (await readFile(out, 'utf8')).trim().split('\n');

    await runOnce();
    expect(await lines()).toEqual(['one']);

    const edited = await call<JobJson>('PUT', `/jobs/${job.id}/script`, {
      glueSource: `echo two >> '${out}'`,
      glueRemark: 'say two',
    });
    expect(edited.glueUpdatedAt).toBeGreaterThan(job.glueUpdatedAt);
    await runOnce();
    expect(await lines()).toEqual(['one', 'two']);

    const { items } = await call<{ items: Array<{ id: number; glueRemark: string }> }>(
      'GET',
      `/jobs/${job.id}/script/versions`,
    );
    expect(items.map((v) => v.glueRemark)).toEqual(['say two', 'first']);
    await call('POST', `/jobs/${job.id}/script/versions/${items[1]!.id}/restore`);
    await runOnce();
    expect(await lines()).toEqual(['one', 'two', 'one']);
  });
});
