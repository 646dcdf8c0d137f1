/**
 * The step function of a workflow run (workflows/run-state.ts): joins, skips and their
 * propagation, ALWAYS edges, continue-on-failure, disabled nodes, decisions, and when a run
 * fails. Pure: no database, no executor.
 */
import type { WorkflowEdge, WorkflowNode } from '@tickwheel/protocol';
import { describe, expect, it } from 'vitest';
import {
  type Definition,
  initialState,
  type NodeOutcome,
  progress,
  type RunState,
  reopenAfter,
} from '../src/workflows/run-state.js';

const jobs = (...keys: string[]): WorkflowNode[] => keys.map((key) => ({ key, jobId: 1 }));
const edge = (from: string, to: string, condition?: WorkflowEdge['condition']): WorkflowEdge => ({
  from,
  to,
  ...(condition === undefined ? {} : { condition }),
});

/** Steps a run to its end, ending each started node as `ends` says (default succeeded). */
function runThrough(definition: Definition, ends: Record<string, NodeOutcome['status']> = {}) {
  let state: RunState = initialState(definition);
  let runStatus: string = 'running';
  const started: string[][] = [];
  let outcomes = new Map<string, NodeOutcome>();
  for (let step = 0; step < 50; step++) {
    const result = progress({
      definition,
      state,
      runStatus: runStatus as 'running',
      run: { id: 1, param: null },
      outcomes,
      now: step,
    });
    state = result.state;
    runStatus = result.runStatus;
    if (result.start.length > 0) started.push(result.start.map((node) => node.key));
    outcomes = new Map(
      result.start.map((node) => [
        node.key,
        { status: ends[node.key] ?? 'succeeded', output: `${node.key}-out` },
      ]),
    );
    if (outcomes.size === 0 && runStatus !== 'running') break;
  }
  const statuses = Object.fromEntries(Object.entries(state.nodes).map(([key, node]) => [key, node.status]));
  return { statuses, runStatus, started, state };
}

describe('workflow run steps', () => {
  it('joins a diamond: D starts in the step after both B and C ended', () => {
    const run = runThrough({
      nodes: jobs('A', 'B', 'C', 'D'),
      edges: [edge('A', 'B'), edge('A', 'C'), edge('B', 'D'), edge('C', 'D')],
    });
    expect(run.started).toEqual([['A'], ['B', 'C'], ['D']]);
    expect(run.runStatus).toBe('succeeded');
  });

  it('skips down success edges, runs failure edges, and a handled failure leaves the run succeeded', () => {
    const run = runThrough(
      {
        nodes: jobs('A', 'B', 'D', 'E', 'F'),
        edges: [edge('A', 'B'), edge('B', 'D'), edge('B', 'E', 'FAILURE'), edge('D', 'F')],
      },
      { B: 'failed' },
    );
    expect(run.statuses).toEqual({ A: 'succeeded', B: 'failed', D: 'skipped', E: 'succeeded', F: 'skipped' });
    expect(run.runStatus).toBe('succeeded');
  });

  it('fails the run when a failure is not handled, and ALWAYS edges run after a skip', () => {
    const run = runThrough(
      { nodes: jobs('A', 'B', 'C'), edges: [edge('A', 'B'), edge('B', 'C', 'ALWAYS')] },
      { A: 'failed' },
    );
    expect(run.statuses).toEqual({ A: 'failed', B: 'skipped', C: 'succeeded' });
    expect(run.runStatus).toBe('failed');
  });

  it('lets a continue-on-failure node pass its success edges, and skips a disabled node and what needs it', () => {
    const nodes: WorkflowNode[] = [
      { key: 'A', jobId: 1, continueOnFailure: true },
      { key: 'B', jobId: 1 },
      { key: 'C', jobId: 1, disabled: true },
      { key: 'D', jobId: 1 },
    ];
    const run = runThrough(
      { nodes, edges: [edge('A', 'B'), edge('B', 'C'), edge('C', 'D')] },
      { A: 'failed' },
    );
    expect(run.statuses).toEqual({ A: 'failed', B: 'succeeded', C: 'skipped', D: 'skipped' });
    expect(run.state.nodes.C!.message).toBe('disabled');
    expect(run.runStatus).toBe('succeeded');
  });

  it('follows the decision edge whose value matches, and fails a decision that does not evaluate', () => {
    const nodes: WorkflowNode[] = [
      { key: 'A', jobId: 1 },
      { key: 'pick', type: 'DECISION', expression: 'upstream.A.output == "A-out" ? "left" : "right"' },
      { key: 'L', jobId: 1 },
      { key: 'R', jobId: 1 },
    ];
    const edges: WorkflowEdge[] = [
      edge('A', 'pick'),
      { from: 'pick', to: 'L', value: 'left' },
      { from: 'pick', to: 'R', value: 'right' },
    ];
    const run = runThrough({ nodes, edges });
    expect(run.statuses).toEqual({ A: 'succeeded', pick: 'succeeded', L: 'succeeded', R: 'skipped' });
    expect(run.state.nodes.pick!.decision).toBe('left');

    const broken = runThrough({
      nodes: [nodes[0]!, { ...nodes[1]!, expression: 'upstream.missing.output' }, nodes[2]!, nodes[3]!],
      edges,
    });
    expect(broken.statuses.pick).toBe('failed');
    expect(broken.state.nodes.pick!.message).toContain('did not evaluate');
    expect(broken.runStatus).toBe('failed');
  });

  it('reopens the nodes skipped because of a node that is retried, not a disabled one', () => {
    const nodes: WorkflowNode[] = [...jobs('A', 'B', 'C'), { key: 'X', jobId: 1, disabled: true }];
    const definition = { nodes, edges: [edge('A', 'B'), edge('B', 'C'), edge('A', 'X')] };
    const failed = runThrough(definition, { A: 'failed' });
    expect(failed.statuses).toEqual({ A: 'failed', B: 'skipped', C: 'skipped', X: 'skipped' });
    const nodesAfter = structuredClone(failed.state.nodes);
    nodesAfter.A = { status: 'succeeded', startedAt: 0, finishedAt: 0 };
    reopenAfter(definition, nodesAfter, 'A');
    expect(Object.fromEntries(Object.entries(nodesAfter).map(([k, n]) => [k, n.status]))).toEqual({
      A: 'succeeded',
      B: 'waiting',
      C: 'waiting',
      X: 'skipped',
    });
  });

  it('starts nothing once a run is stopped, and records its running nodes as they end', () => {
    const definition = { nodes: jobs('A', 'B'), edges: [edge('A', 'B')] };
    const state = initialState(definition);
    state.nodes.A = { status: 'running', startedAt: 0, finishedAt: null };
    state.nodes.B = { status: 'stopped', startedAt: null, finishedAt: null };
    const result = progress({
      definition,
      state,
      runStatus: 'stopped',
      run: { id: 1, param: null },
      outcomes: new Map([['A', { status: 'failed' }]]),
      now: 5,
    });
    expect(result.start).toEqual([]);
    expect(result.state.nodes.A!.status).toBe('stopped');
    expect(result.runStatus).toBe('stopped');
  });
});
