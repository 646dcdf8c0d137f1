/**
 * The environment a script runs with. Scripts are typed in by console users, so they get a
 * minimal environment, not the executor's: whatever else the executor was started with
 * (database URLs, cloud credentials, the access token) stays out of their reach.
 */
import os from 'node:os';
import type { ScriptAccount } from './script-user.js';

/**
 * Tickwheel's own secrets. They are never copied into a script's environment, even if a later
 * change widened the list of variables passed through: a second guard.
 */
export const SECRET_ENVIRONMENT: readonly string[] = [
  'TICKWHEEL_ACCESS_TOKEN',
  'TICKWHEEL_API_TOKEN',
  'TICKWHEEL_ADMIN_PASSWORD',
  'XXL_JOB_ACCESSTOKEN',
];

/** Variables passed through from the executor: the ones scripts need to find programs and format text. */
const PASSED_THROUGH = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'SHELL'];
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface ScriptEnvironmentOptions {
  /** The user the script runs as when it is not the executor's: HOME, USER and LOGNAME are theirs. */
  account?: ScriptAccount | undefined;
  /** Variables the operator passes to scripts on purpose (the `scriptEnv` option). */
  extra?: Readonly<Record<string, string>>;
}

/**
 * The environment of a script: PATH, LANG, LC_*, TZ, TMPDIR and SHELL from `env`; HOME, USER
 * and LOGNAME of the script's user; then `extra`; never one of {@link SECRET_ENVIRONMENT}.
 *
 * @example
 * spawn('bash', [file], { env: scriptEnvironment(process.env, { extra: { PGHOST: 'db' } }) });
 */
export function scriptEnvironment(
  env: NodeJS.ProcessEnv,
  options: ScriptEnvironmentOptions = {},
): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && (PASSED_THROUGH.includes(name) || name.startsWith('LC_')))
      result[name] = value;
  }
  result.PATH ??= DEFAULT_PATH;
  Object.assign(result, identityOf(env, options.account), options.extra);
  for (const name of SECRET_ENVIRONMENT) delete result[name];
  return result;
}

/**
 * HOME, USER and LOGNAME. Another user never gets the executor's HOME: dotfiles there (a
 * `.netrc`, cloud credentials) are the executor's, and the script could not write there anyway.
 */
function identityOf(env: NodeJS.ProcessEnv, account: ScriptAccount | undefined): NodeJS.ProcessEnv {
  if (account !== undefined) {
    const names = account.name === undefined ? {} : { USER: account.name, LOGNAME: account.name };
    return { HOME: account.home, ...names };
  }
  const identity: NodeJS.ProcessEnv = {};
  const home = env.HOME ?? os.homedir();
  if (home) identity.HOME = home;
  const user = env.USER ?? env.LOGNAME ?? currentUserName();
  if (user !== undefined) {
    identity.USER = user;
    identity.LOGNAME = user;
  }
  return identity;
}

function currentUserName(): string | undefined {
  try {
    return os.userInfo().username;
  } catch {
    return undefined; // a uid without a passwd entry (containers run with --user 12345)
  }
}
