/**
 * The walk FAILOVER and BUSYOVER share: ask each candidate in turn and pick the first that
 * answers code 200, writing down every answer (`http://a/ beat failed (connect ECONNREFUSED …);
 * http://b/ beat ok → http://b/`).
 */
import type { RouteStrategy } from '@tickwheel/protocol';
import type { CallOutcome, ExecutorAddress } from '../executor-client.js';
import type { RoutePick } from './route.js';

export async function askInTurn(
  strategy: RouteStrategy,
  call: 'beat' | 'idleBeat',
  candidates: readonly ExecutorAddress[],
  ask: (target: ExecutorAddress) => Promise<CallOutcome<unknown>>,
): Promise<RoutePick> {
  const answers: string[] = [];
  for (const candidate of candidates) {
    const outcome = await ask(candidate);
    if (outcome.ok) {
      answers.push(`${candidate.address} ${call} ok`);
      return {
        picked: [candidate],
        message: `route ${strategy}: ${answers.join('; ')} → ${candidate.address}`,
      };
    }
    answers.push(`${candidate.address} ${call} failed (${outcome.msg ?? `code ${outcome.code}`})`);
  }
  return {
    picked: [],
    message: `route ${strategy}: ${answers.join('; ')}; no executor answered ${call} with code 200`,
  };
}
