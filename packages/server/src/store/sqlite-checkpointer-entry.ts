/**
 * The WAL checkpoint thread (sqlite-checkpointer.ts): its own connection to the store's file,
 * checkpointed on its own timer every `intervalMs`, each checkpoint's counts posted; `'close'`
 * stops the timer and closes the connection.
 */
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type {
  CheckpointerAnswer,
  CheckpointerCall,
  SqliteCheckpointerThreadData,
  WalCheckpoint,
} from './sqlite-checkpointer.js';

/** A row of `PRAGMA wal_checkpoint`: whether it could not finish, the log's frames, those copied. */
interface CheckpointRow {
  busy: number;
  log: number;
  checkpointed: number;
}

const port = parentPort;
if (port === null) throw new Error('sqlite-checkpointer-entry.js runs only as a worker thread');
const data = workerData as SqliteCheckpointerThreadData;

let db: BetterSqlite3.Database | undefined;
try {
  db = new BetterSqlite3(data.file, { fileMustExist: true });
  db.pragma('synchronous = NORMAL');
  // How long a RESTART checkpoint waits for a writer or a reader before it gives up for this interval.
  db.pragma(`busy_timeout = ${Number(data.restartWaitMs)}`);
  port.postMessage({ type: 'ready' });
} catch (err) {
  port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
}

const timer = setInterval(() => {
  const answer = checkpoint();
  if (answer.type === 'failed') clearInterval(timer);
  port.postMessage(answer);
}, data.intervalMs);

port.on('message', (message: CheckpointerCall) => {
  if (message === 'close') {
    clearInterval(timer);
    try {
      db?.close();
    } catch {}
    port.close();
  }
});

/**
 * A PASSIVE checkpoint, and a RESTART one at once when the log holds `restartFrames` frames or
 * more: the passive one never copies frames written while it runs, so at a high write rate only a
 * restart lets the log start over (sqlite-checkpointer.ts).
 */
function checkpoint(): CheckpointerAnswer {
  try {
    if (db === undefined) throw new Error('the WAL checkpoint thread has no connection');
    let mode: WalCheckpoint['mode'] = 'PASSIVE';
    let result = checkpointRow(db, 'PASSIVE');
    if (result.log >= data.restartFrames) {
      mode = 'RESTART';
      result = checkpointRow(db, 'RESTART');
    }
    return {
      type: 'checkpointed',
      mode,
      busy: result.busy === 1,
      log: result.log,
      checkpointed: result.checkpointed,
    };
  } catch (err) {
    return { type: 'failed', message: err instanceof Error ? err.message : String(err) };
  }
}

function checkpointRow(db: BetterSqlite3.Database, mode: WalCheckpoint['mode']): CheckpointRow {
  const [row] = db.pragma(`wal_checkpoint(${mode})`) as CheckpointRow[];
  if (row === undefined) throw new Error(`wal_checkpoint(${mode}) returned no row`);
  return row;
}
