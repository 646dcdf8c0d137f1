/**
 * The README's test command (`npm test` → tools/test) checks what it needs before it runs
 * anything. As root it installs missing Debian packages itself (tried by hand: see the README);
 * this suite covers the other side, a user without root on a machine that lacks some.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('..', import.meta.url));
const isRoot = process.getuid?.() === 0;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A dpkg-query that reports the named packages as not installed and asks the real one otherwise. */
function machineWithout(packages: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'tickwheel-test-command-'));
  dirs.push(dir);
  chmodSync(dir, 0o755);
  const cases = packages.map((name) => `*" ${name}"*) exit 1 ;;`).join('\n  ');
  writeFileSync(
    join(dir, 'dpkg-query'),
    `#!/bin/sh\ncase " $*" in\n  ${cases}\nesac\nexec /usr/bin/dpkg-query "$@"\n`,
    { mode: 0o755 },
  );
  return dir;
}

describe('the test command', () => {
  it.skipIf(!isRoot)(
    'without root, names the missing Debian packages and the command that installs them, and runs nothing',
    () => {
      const shim = machineWithout(['php-cli', 'chromium']);
      const result = spawnSync(
        'setpriv',
        [
          '--reuid=65534',
          '--regid=65534',
          '--clear-groups',
          'env',
          `PATH=${shim}:${process.env.PATH}`,
          'bash',
          'tools/test',
        ],
        { cwd: repo, encoding: 'utf8', timeout: 20_000 },
      );
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('not installed: php-cli chromium');
      expect(result.stderr).toContain(
        'sudo apt-get update && sudo apt-get install -y --no-install-recommends php-cli chromium',
      );
      // Nothing ran: no step started (steps print "==> ...").
      expect(result.stdout).not.toContain('==>');
    },
  );
});
