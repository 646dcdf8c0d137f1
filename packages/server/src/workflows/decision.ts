/**
 * Decision nodes: a CEL expression (Common Expression Language, the sandboxed, non-Turing-complete
 * language Kubernetes uses for its validation rules) evaluated over the run's context. No code of
 * the author runs on the server: CEL has no loops, no I/O and no access to the process, and its
 * parser bounds the expression's size and depth.
 *
 * The expression sees `run` ({id, param}), `upstream` (the decision's direct upstream nodes,
 * `{key: {status, output}}`) and `nodes` (every node of the run, the same shape). Its value, as
 * text, picks the outgoing edges whose `value` equals it: `true`/`false` for a comparison, the
 * string itself for a string, digits for a number, JSON for a list or map.
 */
import { evaluate, parse } from '@marcbachmann/cel-js';

export interface DecisionContext {
  run: { id: number; param: string };
  upstream: Record<string, { status: string; output: unknown }>;
  nodes: Record<string, { status: string; output: unknown }>;
}

export type DecisionVerdict = { ok: true; value: string } | { ok: false; error: string };

/** The expression's value as text, or why it did not evaluate. Never throws. */
export function evaluateDecision(expression: string, context: DecisionContext): DecisionVerdict {
  try {
    return { ok: true, value: asText(evaluate(expression, context as unknown as Record<string, unknown>)) };
  } catch (err) {
    return { ok: false, error: `the decision did not evaluate: ${firstLine(err)}` };
  }
}

/** Why `expression` does not parse, or null when it does (checked when a workflow is saved). */
export function decisionSyntaxError(expression: string): string | null {
  try {
    parse(expression);
    return null;
  } catch (err) {
    return firstLine(err);
  }
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  if (value === null || value === undefined) return 'null';
  return JSON.stringify(value, (_key, inner) => (typeof inner === 'bigint' ? Number(inner) : inner));
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0]!.trim();
}
