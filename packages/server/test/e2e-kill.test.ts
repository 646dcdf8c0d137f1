import { afterEach, describe, expect, it } from 'vitest';
import {
  createApp,
  createJob,
  type E2eExecutor,
  type E2eServer,
  startExecutor,
  startServer,
  waitFor,
} from './helpers/e2e.js';

const API_TOKEN = 'e2e-api-token-0123456789abcdef';

let server: E2eServer | undefined;
let executor: E2eExecutor | undefined;

afterEach(async () => {
  await executor?.close();
  await server?.close();
  server = undefined;
  executor = undefined;
});

describe('kill through the API end to end', () => {
  it('killFire stops the run on its executor and records the fire killed', async () => {
    server = await startServer({ apiToken: API_TOKEN });
    const aborted: unknown[] = [];
    let running = false;
    executor = await startExecutor(server.server, 'e2e-kill', (ex) =>
      ex.handle('forever', async (ctx) => {
        running = true;
        await new Promise<void>((resolve) =>
          ctx.signal.addEventListener('abort', () => {
            aborted.push(ctx.signal.reason);
            resolve();
          }),
        );
      }),
    );
    const appId = await createApp(server.store, 'e2e-kill');
    const job = await createJob(server.store, {
      app_id: appId,
      name: 'runs until killed',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'forever',
    });
    const { fireId } = await server.server.triggerJob({ jobId: job.id });
    await waitFor(() => running, { what: 'the run to start' });

    const response = await fetch(`${server.server.url}api/v1/fires/${fireId}/kill`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: fireId, status: 'killed' });
    await waitFor(() => aborted.length === 1, { what: 'the handler to be aborted' });
    // The executor's own report of the killed run arrives later and changes nothing.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const fire = (await server.store.fires.findFireById(fireId))!;
    expect(fire.status).toBe('killed');
    expect(fire.handle_msg).toMatch(/killed by admin through the API/);
  });
});
