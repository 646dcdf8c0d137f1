/**
 * Permissions of the executor's log directory. It holds run logs (script output, often with
 * data in it), the script sources, spilled results and the accepted-logIds journal: none of it
 * is for other local users, nor for scripts running as another user (`uid`/`gid`), who may only
 * reach the script sources in `gluesource/`.
 */
import { chmod, mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { GLUE_SOURCE_FOLDER } from './job-log.js';

/**
 * Creates the log directory owner-only (0700) and narrows to 0700 its folders an earlier
 * version created wider. With `scriptsRunAsOtherUser`, the directory itself gets o+x: other
 * users may pass through it (not list it) to `gluesource/`, which the script runner shares with
 * the scripts' group only.
 */
export async function prepareLogDir(
  logDir: string,
  scriptsRunAsOtherUser: boolean,
  logger: Pick<Logger, 'warn'>,
): Promise<void> {
  await mkdir(logDir, { recursive: true, mode: 0o700 });
  if (scriptsRunAsOtherUser) await letOthersTraverse(logDir, logger);
  const narrowed: string[] = [];
  for (const entry of await readdir(logDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    if (scriptsRunAsOtherUser && entry.name === GLUE_SOURCE_FOLDER) continue;
    const folder = path.join(logDir, entry.name);
    if (await narrowFolder(folder, logger)) narrowed.push(entry.name);
  }
  if (narrowed.length > 0) {
    logger.warn(
      { logDir, folders: narrowed },
      'log directory folders were open to other users; made them owner-only',
    );
  }
}

/**
 * Makes `folder` owner-only when it is wider; true when it was narrowed. A folder this process
 * may not change (another user's) is logged and left: the executor still starts.
 */
async function narrowFolder(folder: string, logger: Pick<Logger, 'warn'>): Promise<boolean> {
  try {
    if (((await stat(folder)).mode & 0o077) === 0) return false;
    await chmod(folder, 0o700);
    return true;
  } catch (err) {
    logger.warn({ err, folder }, 'could not make a log directory folder owner-only');
    return false;
  }
}

/**
 * Adds o+x to a directory this process owns; a directory owned by someone else (a shared
 * `/var/log`) is left as it is, and scripts fail to open their file if it does not let them in.
 */
async function letOthersTraverse(dir: string, logger: Pick<Logger, 'warn'>): Promise<void> {
  const { mode, uid } = await stat(dir);
  if ((mode & 0o001) !== 0) return;
  if (uid !== process.getuid?.()) {
    logger.warn({ logDir: dir }, 'scripts run as another user but cannot enter the log directory (no o+x)');
    return;
  }
  await chmod(dir, (mode & 0o7777) | 0o001);
}
