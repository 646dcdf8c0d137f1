/**
 * A failed workflow run is alarmed through the workflow's alarm channels, once per run, with
 * the run and its failed node named; a run that succeeds, or whose failure a FAILURE edge
 * handles, raises nothing.
 */
import { type HttpReceiver, startHttpReceiver } from '@tickwheel/test-fixtures/alarm-receivers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApp,
  createJob,
  type E2eExecutor,
  type E2eServer,
  sleep,
  startExecutor,
  startServer,
  waitFor,
} from './helpers/e2e.js';
import { callApiOk } from './helpers/http-api.js';

const API_TOKEN = 'e2e-workflow-alarm-token-0123456789ab';
const APP = 'e2e-workflow-alarms';

let server: E2eServer;
let executor: E2eExecutor;
let receiver: HttpReceiver;
let appId: number;
let jobId: number;
let channelId: number;

const api = <T>(method: string, path: string, body?: unknown) =>
  callApiOk<T>(server.server.url, method, `/api/v1${path}`, {
    token: API_TOKEN,
    ...(body === undefined ? {} : { body }),
  });

beforeAll(async () => {
  server = await startServer({ apiToken: API_TOKEN, allowedNetworks: ['127.0.0.0/8'] });
  receiver = await startHttpReceiver(() => ({ status: 204 }));
  executor = await startExecutor(server.server, APP, (ex) =>
    ex.handle('wf-fail-on', (ctx) => {
      if (ctx.param === 'fail') throw new Error(`node ${ctx.workflow?.nodeKey} failed as asked`);
      return 'ok';
    }),
  );
  appId = await createApp(server.store, APP);
  jobId = (
    await createJob(server.store, {
      app_id: appId,
      name: 'fail on',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'wf-fail-on',
    })
  ).id;
  channelId = (
    await api<{ id: number }>('POST', '/alarm-channels', {
      name: 'workflow-hook',
      type: 'WEBHOOK',
      config: { url: `${receiver.url}/alarms` },
    })
  ).id;
}, 30_000);

afterAll(async () => {
  await executor?.close();
  await receiver?.close();
  await server?.close();
});

async function runToEnd(workflowId: number): Promise<{ id: number; status: string }> {
  const { runId } = await api<{ runId: number }>('POST', `/workflows/${workflowId}/trigger`, {});
  let run = { id: runId, status: 'running' };
  await waitFor(
    async () => {
      run = await api('GET', `/workflow-runs/${runId}`);
      return !['running', 'waiting'].includes(run.status);
    },
    { what: `workflow run ${runId} to end` },
  );
  return run;
}

describe('workflow alarms', () => {
  it('alarms a failed run once through the workflow’s channels, naming the failed node', async () => {
    const workflow = await api<{ id: number }>('POST', '/workflows', {
      appId,
      name: 'alarmed',
      alarmChannelIds: [channelId],
      nodes: [
        { key: 'ok', jobId },
        { key: 'broken', jobId, param: 'fail' },
      ],
      edges: [{ from: 'ok', to: 'broken' }],
    });
    const run = await runToEnd(workflow.id);
    expect(run.status).toBe('failed');
    await waitFor(() => receiver.requests.length === 1, { what: 'the workflow alarm' });
    const alarm = receiver.requests[0]!.json as { event: string; title: string; reason: string };
    expect(alarm.event).toBe('alarm');
    expect(alarm.title).toContain('Workflow');
    expect(alarm.title).toContain('alarmed');
    expect(alarm.reason).toContain(`workflow run ${run.id} failed`);
    expect(alarm.reason).toContain('broken');
    // The sweep does not send it again.
    await sleep(500);
    expect(receiver.requests).toHaveLength(1);
    expect((await server.store.workflows.findRunById(run.id))!.alarm_status).toBe(2);
  });

  it('raises nothing for a run whose failure a FAILURE edge handles', async () => {
    const before = receiver.requests.length;
    const workflow = await api<{ id: number }>('POST', '/workflows', {
      appId,
      name: 'handled',
      alarmChannelIds: [channelId],
      nodes: [
        { key: 'broken', jobId, param: 'fail' },
        { key: 'cleanup', jobId },
      ],
      edges: [{ from: 'broken', to: 'cleanup', condition: 'FAILURE' }],
    });
    expect((await runToEnd(workflow.id)).status).toBe('succeeded');
    await sleep(500);
    expect(receiver.requests).toHaveLength(before);
  });
});
