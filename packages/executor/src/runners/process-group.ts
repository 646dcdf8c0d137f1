/**
 * Process groups of script runs: a script runs as the leader of its own group, so signalling
 * the group reaches everything the script started (a `sleep` in the foreground, a background
 * job), which a signal to the interpreter alone would leave running.
 */
import { readdirSync, readFileSync } from 'node:fs';

const POLL_MS = 50;

/** Groups of scripts still running, killed if the process exits before stopping them. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Tracks a script's group until {@link untrackGroup}. Should the executor's process exit first
 * (`process.exit()`, e.g. an operator's second Ctrl+C), the group gets a SIGKILL on the way out
 * instead of living on unobserved; only a SIGKILL of the executor itself leaves it behind.
 */
export function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) signalGroup(group, 'SIGKILL');
  });
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/**
 * SIGTERM to the whole group, then SIGKILL to whatever is left after `graceMs`. Resolves when
 * no member is running any more, or `graceMs` after the SIGKILL at the latest.
 */
export async function stopProcessGroup(pgid: number, graceMs: number): Promise<void> {
  signalGroup(pgid, 'SIGTERM');
  if (await groupEndsWithin(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  await groupEndsWithin(pgid, graceMs);
}

/**
 * True while some member of the group is running. An exited member whose parent died before it
 * is a zombie until PID 1 reaps it, and a PID 1 that does not reap (a container without an init)
 * keeps it for ever; a zombie runs nothing, so on Linux, where `/proc` tells, zombies do not count.
 */
export function groupIsRunning(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    // EPERM: a member exists but runs as another user (it changed its user id).
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return procListsGroupMembers() ? runningMembersOnProc(pgid) > 0 : true;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: every member of the group has already exited.
  }
}

async function groupEndsWithin(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (groupIsRunning(pgid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

function procListsGroupMembers(): boolean {
  return process.platform === 'linux';
}

/** Counts the group's members that are not zombies, from `/proc/<pid>/stat`. */
function runningMembersOnProc(pgid: number): number {
  let running = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z') running++;
  }
  return running;
}

function readStat(pid: string): { state: string; pgrp: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // exited while we listed /proc
  }
  // `pid (comm) state ppid pgrp ...`; comm may itself hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const pgrp = Number(fields[2]);
  return state === undefined ? undefined : { state, pgrp };
}
