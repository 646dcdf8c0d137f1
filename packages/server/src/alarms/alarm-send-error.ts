/**
 * A channel that did not take an alarm says why with an `AlarmSendError`: the message is what
 * the fire record keeps in `alarmMsg`, and `retryable` tells the queue whether trying again can
 * help (a timeout or a 503 can; a robot refusing our signature, or an alarm with no recipient,
 * cannot).
 */
import { TickwheelError } from '@tickwheel/protocol';

export class AlarmSendError extends TickwheelError {
  readonly retryable: boolean;

  constructor(message: string, options: { retryable: boolean; cause?: unknown }) {
    super('TW_ERR_ALARM_SEND_FAILED', message, undefined, { cause: options.cause });
    this.name = 'AlarmSendError';
    this.retryable = options.retryable;
  }
}

/** Whatever a send threw, as an AlarmSendError (unknown errors are taken as retryable). */
export function toAlarmSendError(err: unknown): AlarmSendError {
  if (err instanceof AlarmSendError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new AlarmSendError(message, { retryable: true, cause: err });
}
