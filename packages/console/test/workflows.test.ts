/**
 * The workflow pages in a real Chromium against a real server and executor: the diamond
 * A → (B, C) → D built in the editor (four job nodes picked from the jobs list, edges drawn by
 * dragging from one node's handle onto another), a cycle refused before saving with the cycle
 * named, saved, triggered from the list, and watched in the run view until every node has
 * succeeded; a node opens its fire record and log.
 *
 * TICKWHEEL_SCREENSHOTS=docs/images writes workflow-editor.png and workflow-run.png there
 * (relative to the repository's root) for the docs.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { choose } from './helpers/choose.js';
import { createJob } from './helpers/fire-runs.js';
import { APP_NAME, type Platform, startPlatform } from './helpers/platform.js';

interface WorkflowAnswer {
  id: number;
  name: string;
  appId: number;
  nodes: {
    key: string;
    type?: string;
    jobId?: number;
    param?: string;
    position?: { x: number; y: number };
  }[];
  edges: { from: string; to: string; condition?: string }[];
}

interface RunAnswer {
  id: number;
  status: string;
  nodes: { key: string; status: string; fireIds: number[]; output?: unknown }[];
}

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SHOTS = process.env.TICKWHEEL_SCREENSHOTS;
const KEYS = ['A', 'B', 'C', 'D'] as const;
const DIAMOND = [
  ['A', 'B'],
  ['A', 'C'],
  ['B', 'D'],
  ['C', 'D'],
] as const;
const WORKFLOW_NAME = 'nightly diamond';
/** D's param: the outputs of the two nodes before it (`${B.output} & ${C.output}`). */
const D_PARAM = `\${B.output} & \${C.output}`;

async function shoot(page: Page, name: string): Promise<void> {
  if (SHOTS === undefined || SHOTS === '') return;
  const dir = path.resolve(ROOT, SHOTS);
  await mkdir(dir, { recursive: true });
  await page.evaluate(() => document.fonts.ready);
  await page.waitForFunction(() => document.querySelector('.ant-message-notice') === null, undefined, {
    timeout: 15_000,
  });
  await page.mouse.move(1, 1);
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: false });
}

/** Presses on `from`, moves in steps (as a hand does) onto `to`, and lets go. */
async function drag(page: Page, from: Locator, to: Locator): Promise<void> {
  const start = await from.boundingBox();
  const end = await to.boundingBox();
  if (start === null || end === null) throw new Error('a handle to drag between is not on screen');
  await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2);
  await page.mouse.down();
  await page.mouse.move(end.x + end.width / 2, end.y + end.height / 2, { steps: 12 });
  await page.mouse.up();
}

/** The point halfway along the drawn edge `id` (e.g. `D->A`), in page coordinates. */
async function edgeMiddle(page: Page, id: string): Promise<{ x: number; y: number }> {
  return page.evaluate((edgeId) => {
    const line = document.querySelector<SVGPathElement>(
      `.react-flow__edge[data-id="${CSS.escape(edgeId)}"] path.react-flow__edge-path`,
    );
    if (line === null) throw new Error(`no edge ${edgeId} is drawn`);
    const point = line.getPointAtLength(line.getTotalLength() / 2);
    const screen = point.matrixTransform(line.getScreenCTM()!);
    return { x: screen.x, y: screen.y };
  }, id);
}

describe('console: workflows', () => {
  let platform: Platform;
  let browser: Browser;
  let page: Page;
  const jobIds = new Map<string, number>();
  let workflowId: number;

  beforeAll(async () => {
    platform = await startPlatform();
    for (const key of KEYS) {
      jobIds.set(
        key,
        await createJob(platform, {
          name: `diamond ${key}`,
          scheduleType: 'NONE',
          executorHandler: 'echo',
          executorParam: `param of ${key}`,
        }),
      );
    }
    browser = await launchBrowser();
    page = await newPage(browser, { width: 1440, height: 1000 });
    await signIn(page, platform.url);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const open = (to: string) => page.goto(new URL(to.replace(/^\//, ''), platform.url).toString());
  const canvas = () => page.getByTestId('workflow-canvas');
  const node = (key: string) => canvas().getByTestId(`wf-node-${key}`);

  async function addJobNode(key: string): Promise<void> {
    await page.getByTestId('graph-toolbar').getByRole('button', { name: 'Job' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a job node' });
    await dialog.getByLabel('Key', { exact: true }).fill(key);
    await choose(page, 'Job', `diamond ${key}`, `diamond ${key}`);
    await dialog.getByRole('button', { name: 'Add' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await node(key).waitFor();
    await expect(node(key).textContent()).resolves.toContain(`diamond ${key}`);
  }

  /**
   * Draws the edge `from → to` by dragging between the two handles, once the canvas has stopped
   * moving (it fits its view as nodes come). A drag the page lost under load (no edge appeared)
   * is made again, up to three times; the edge must then be there.
   */
  async function connect(from: string, to: string): Promise<void> {
    const edges = canvas().locator('.react-flow__edge');
    const before = await edges.count();
    const out = page.getByTestId(`wf-handle-out-${from}`);
    const into = page.getByTestId(`wf-handle-in-${to}`);
    for (let attempt = 0; attempt < 3 && (await edges.count()) === before; attempt++) {
      await expect
        .poll(async () => {
          const first = JSON.stringify([await out.boundingBox(), await into.boundingBox()]);
          await page.waitForTimeout(150);
          return first === JSON.stringify([await out.boundingBox(), await into.boundingBox()]);
        })
        .toBe(true);
      await drag(page, out, into);
      await expect
        .poll(() => edges.count(), { timeout: 3_000 })
        .toBe(before + 1)
        .catch(() => undefined);
    }
    await expect.poll(() => edges.count()).toBe(before + 1);
  }

  it('builds the diamond A → (B, C) → D in the editor by picking jobs and dragging edges between handles, refuses a cycle naming it, and saves', async () => {
    await open('/workflows');
    await page.getByRole('button', { name: 'New workflow' }).click();
    await page.waitForURL(/\/workflows\/new/);
    // The URL changes before the editor has replaced the list, whose App filter would otherwise
    // take the choice below.
    await page.getByLabel('Name', { exact: true }).waitFor();
    await choose(page, 'App', APP_NAME, APP_NAME);
    await page.getByLabel('Name', { exact: true }).fill(WORKFLOW_NAME);

    for (const key of KEYS) await addJobNode(key);

    for (const [from, to] of DIAMOND) await connect(from, to);

    // Laid out left to right, the diamond leaves room between B and C for an edge back from D to A.
    await page.getByTestId('graph-toolbar').getByRole('button', { name: 'Lay out' }).click();
    await page.waitForTimeout(400);

    // D → A closes a loop: saving is refused before anything is sent, the cycle named.
    await connect('D', 'A');
    await expect.poll(() => canvas().locator('.react-flow__edge').count()).toBe(5);
    await page.getByRole('button', { name: 'Save' }).click();
    const problem = page.getByTestId('graph-problem');
    await problem.waitFor();
    await expect(problem.textContent()).resolves.toMatch(/cycle: A → B → D → A/);
    // The edge D → A is the one to take away: click it and remove it in its panel.
    const middle = await edgeMiddle(page, 'D->A');
    await page.mouse.click(middle.x, middle.y);
    const edgePanel = page.getByTestId('edge-panel');
    await edgePanel.waitFor();
    await edgePanel.getByRole('button', { name: 'Remove edge' }).click();
    await expect.poll(() => canvas().locator('.react-flow__edge').count()).toBe(4);
    await expect.poll(() => problem.count()).toBe(0);

    // D reads what B and C returned.
    await node('D').click();
    await page.getByTestId('node-panel').getByLabel('Param', { exact: true }).fill(D_PARAM);

    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/workflows$/);
    const row = page
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: WORKFLOW_NAME, exact: true }) });
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('4 nodes');

    const list = await platform.api<{ items: WorkflowAnswer[] }>(
      'GET',
      `/api/v1/workflows?name=${encodeURIComponent(WORKFLOW_NAME)}`,
    );
    const saved = list.items.find((workflow) => workflow.name === WORKFLOW_NAME)!;
    workflowId = saved.id;
    expect(saved.appId).toBe(platform.appId);
    expect(saved.nodes.map((n) => [n.key, n.jobId])).toEqual(KEYS.map((key) => [key, jobIds.get(key)]));
    expect(saved.nodes.find((n) => n.key === 'D')?.param).toBe(D_PARAM);
    for (const n of saved.nodes) expect(n.position).toEqual({ x: expect.any(Number), y: expect.any(Number) });
    expect(saved.edges.map((edge) => `${edge.from}->${edge.to}`).sort()).toEqual(
      DIAMOND.map(([from, to]) => `${from}->${to}`),
    );
    // Laid out left to right: A first, B and C one above the other, D last.
    const at = new Map(saved.nodes.map((n) => [n.key, n.position!]));
    expect(at.get('A')!.x).toBeLessThan(at.get('B')!.x);
    expect(at.get('B')!.x).toBe(at.get('C')!.x);
    expect(at.get('B')!.y).not.toBe(at.get('C')!.y);
    expect(at.get('D')!.x).toBeGreaterThan(at.get('B')!.x);

    await open(`/workflows/${workflowId}`);
    for (const key of KEYS) await node(key).waitFor();
    await expect.poll(() => canvas().locator('.react-flow__edge').count()).toBe(4);
    // The picture shows the graph, from its card's title down.
    await canvas().evaluate((element) => element.closest('.ant-card')?.scrollIntoView({ block: 'start' }));
    await shoot(page, 'workflow-editor');
  }, 120_000);

  it('triggers the workflow from the list and watches the run view until all four nodes are green; a node opens its fire record and log', async () => {
    await open('/workflows');
    await page
      .getByTestId(`workflow-actions-${workflowId}`)
      .getByRole('button', { name: 'Trigger once' })
      .click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Param').fill('from the console');
    await dialog.getByRole('button', { name: 'Trigger', exact: true }).click();
    // The run's link, once the trigger answered; on a loaded machine that may take a while, and
    // should it not come, the failure shows what the dialog says instead (an error, or the form).
    const result = page.getByTestId('workflow-trigger-result');
    await expect
      .poll(async () => ((await result.count()) > 0 ? 'answered' : await dialog.textContent()), {
        timeout: 30_000,
      })
      .toBe('answered');
    await result.getByRole('link', { name: /Watch run #\d+/ }).click();
    await page.waitForURL(/\/workflow-runs\/\d+$/);
    const runId = Number(page.url().match(/\/workflow-runs\/(\d+)$/)?.[1]);

    const graph = page.getByTestId('run-graph');
    for (const key of KEYS) {
      await expect
        .poll(() => graph.getByTestId(`wf-node-${key}`).getAttribute('data-status'), { timeout: 30_000 })
        .toBe('succeeded');
    }
    await expect
      .poll(
        () =>
          page
            .getByRole('heading')
            .filter({ hasText: `Run #${runId}` })
            .textContent(),
        {
          timeout: 10_000,
        },
      )
      .toContain('Succeeded');
    await expect.poll(() => page.getByTestId('run-live').count()).toBe(0);

    const run = await platform.api<RunAnswer>('GET', `/api/v1/workflow-runs/${runId}`);
    expect(run.status).toBe('succeeded');
    expect(run.nodes.map((n) => [n.key, n.status])).toEqual(KEYS.map((key) => [key, 'succeeded']));

    await graph.getByTestId('wf-node-D').click();
    const detail = page.getByTestId('run-node-D');
    await detail.waitFor();
    await expect(detail.getByTestId('run-node-output').textContent()).resolves.toBe(
      'echoed echoed param of B & echoed param of C',
    );
    await shoot(page, 'workflow-run');

    const fireId = run.nodes.find((n) => n.key === 'D')!.fireIds[0]!;
    await detail.getByRole('link', { name: `Fire #${fireId} and its log` }).click();
    await page.waitForURL(new RegExp(`/fires/${fireId}$`));
    await expect
      .poll(() => page.getByTestId('fire-log').textContent(), { timeout: 15_000 })
      .toContain('echo param: echoed param of B & echoed param of C');
    await expect(page.getByTestId('fire-output').textContent()).resolves.toBe(
      'echoed echoed param of B & echoed param of C',
    );
    await page.getByRole('link', { name: `Run #${runId}, node D` }).waitFor();
  }, 90_000);

  it('counts the workflow and its succeeded run on the dashboard', async () => {
    await open('/');
    await expect
      .poll(() => page.getByTestId('figure-workflows-value').textContent(), { timeout: 20_000 })
      .toBe('1');
    await expect
      .poll(() => page.getByTestId('workflow-runs-by-status').textContent(), { timeout: 20_000 })
      .toContain('Succeeded 1');
  });
});
