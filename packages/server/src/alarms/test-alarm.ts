/**
 * `testAlarmChannel`: one send of a test alarm through a channel, now, with the queue's timeout
 * and no retry, so an admin sees at once whether the settings work and, if not, the channel's
 * own answer.
 */
import { randomUUID } from 'node:crypto';
import type { NetworkRules } from '../security/network-rules.js';
import type { AlarmChannelRow } from '../store/index.js';
import { buildTestMessage, splitEmails } from './alarm-message.js';
import { toAlarmSendError } from './alarm-send-error.js';
import { CHANNEL_KINDS, type ChannelConfig, isAlarmChannelType } from './channel-registry.js';

export interface TestAlarmResult {
  sent: boolean;
  error: string | null;
  durationMs: number;
}

export async function sendTestAlarm(
  channel: AlarmChannelRow,
  options: { alarmEmail: string; timeoutMs: number; now(): number; networkRules: NetworkRules },
): Promise<TestAlarmResult> {
  const started = performance.now();
  const result = (error: string | null): TestAlarmResult => ({
    sent: error === null,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  if (!isAlarmChannelType(channel.type)) return result(`unknown channel type ${channel.type}`);
  const message = buildTestMessage(channel.name, options.now(), splitEmails(options.alarmEmail));
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    await CHANNEL_KINDS[channel.type].send(message, JSON.parse(channel.config) as ChannelConfig, {
      signal,
      now: options.now,
      deliveryId: randomUUID(),
      networkRules: options.networkRules,
    });
    return result(null);
  } catch (err) {
    return result(
      signal.aborted ? `no answer within ${options.timeoutMs} ms` : toAlarmSendError(err).message,
    );
  }
}
