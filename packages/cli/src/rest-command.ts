/**
 * What every command that talks to a server shares: `--url`/`TICKWHEEL_URL`,
 * `--token`/`TICKWHEEL_TOKEN` and `--json`, the client built from them, and the action wrapper
 * that turns a failure into `error: <message>` on stderr and the exit code of EXIT_CODES.
 *
 * The options live on each command group (`app`, `job`, ...), not on the program, because
 * `tickwheel start --token` already means the executor access token.
 */
import type { ErrorCode } from '@tickwheel/protocol';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { type ApiClient, ApiError, createCliApiClient, exitCodeOf } from './api-client.js';
import { EXIT_CODES, type ExitCode } from './exit-codes.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080/';
export const ENV = { url: 'TICKWHEEL_URL', token: 'TICKWHEEL_TOKEN' } as const;

export interface RestFlags {
  url: string;
  token?: string;
  json?: boolean;
}

/**
 * A failure that is not the server's answer: a flag combination, a file that does not read, the
 * XXL-JOB database. Its code comes from the catalogue and decides the exit code. A plain Error
 * with the catalogue's code, not a TickwheelError: the REST commands start without loading the
 * protocol package, whose wire validation would be most of their start-up.
 */
export class CliFailure extends Error {
  readonly code: ErrorCode;
  readonly exitCode: ExitCode;

  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'CliFailure';
    this.code = code;
    this.exitCode = EXIT_CODE_OF_FAILURE[code] ?? EXIT_CODES.failed;
  }
}

const EXIT_CODE_OF_FAILURE: Partial<Record<ErrorCode, ExitCode>> = {
  TW_ERR_INVALID_OPTION: EXIT_CODES.usage,
  TW_ERR_STORE_UNAVAILABLE: EXIT_CODES.unreachable,
};

/** Adds the server options to a command group or a standalone command. */
export function withServerOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--url <url>', 'base URL of the Tickwheel server')
        .env(ENV.url)
        .default(DEFAULT_URL)
        .argParser(parseBaseUrl),
    )
    .addOption(new Option('--token <token>', 'bearer API token (tickwheel token create)').env(ENV.token))
    .option('--json', 'print the server’s JSON instead of a table (for scripts)')
    .configureHelp({ showGlobalOptions: true })
    .addHelpText('after', EXIT_CODES_HELP);
}

const EXIT_CODES_HELP = `
Exit codes: ${EXIT_CODES.ok} done, ${EXIT_CODES.failed} refused by the server or failed, ${EXIT_CODES.usage} usage error,
${EXIT_CODES.unreachable} server unreachable, ${EXIT_CODES.auth} bad token or not permitted (401/403), ${EXIT_CODES.notFound} not found (404).`;

/** The flags of a leaf command merged with those of its group. */
export function restFlags(command: Command): RestFlags {
  const flags = command.optsWithGlobals<RestFlags>();
  return { ...flags, url: flags.url ?? DEFAULT_URL };
}

export function clientOf(command: Command): ApiClient {
  const { url, token } = restFlags(command);
  return createCliApiClient({ url, token });
}

/**
 * Wraps a command's action: the action's failures become an exit code. With `--json` the error
 * goes to stderr as the server's envelope, so scripts parse one shape.
 */
export function action<Args extends unknown[]>(
  run: (...args: Args) => Promise<void>,
): (...args: Args) => Promise<void> {
  return async (...args: Args) => {
    const command = args.at(-1) as Command;
    try {
      await run(...args);
    } catch (err) {
      if (!(err instanceof ApiError) && !(err instanceof CliFailure)) throw err;
      if (restFlags(command).json) {
        const error =
          err instanceof ApiError
            ? { code: err.code, field: err.field, message: messageOf(err) }
            : { code: err.code, message: err.message };
        console.error(JSON.stringify({ error }));
      } else {
        console.error(`error: ${messageWithField(err)}`);
      }
      process.exitCode = err instanceof ApiError ? exitCodeOf(err) : err.exitCode;
    }
  };
}

/**
 * The message of a refused input, led by the field at fault when the message does not name it
 * already (the server's own mostly start with it: `edges: the graph has a cycle: A → B → A`).
 * Other refusals (a conflict such as a name taken) read as they are.
 */
function messageWithField(err: ApiError | CliFailure): string {
  if (!(err instanceof ApiError)) return err.message;
  const message = messageOf(err);
  if (!FIELD_ERROR_CODES.has(err.code) || err.field === undefined || message.includes(err.field))
    return message;
  return `${err.field}: ${message}`;
}

/** The server's message, and on a 401 the flags that carry the token. */
function messageOf(err: ApiError): string {
  return err.status === 401 ? `${err.message} (check --token or TICKWHEEL_TOKEN)` : err.message;
}

const FIELD_ERROR_CODES: ReadonlySet<string> = new Set(['TW_ERR_INVALID_FIELD', 'TW_ERR_MISSING_FIELD']);

/** `7` → 7; anything but a positive whole number is a usage error. */
export function parseId(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1)
    throw new InvalidArgumentError('must be a positive whole number.');
  return Number(value);
}

function parseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('must be a URL such as http://127.0.0.1:8080/.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError('must be an http:// or https:// URL.');
  }
  return url.href;
}
