import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs Quartz's own `org.quartz.CronExpression` (Debian's libquartz2-java, Java 17) over a batch
 * of cases in one JVM, so the schedule tests can compare against the implementation XXL-JOB uses.
 * Only the Quartz jar is needed on the classpath: CronExpression does no logging.
 */
export interface QuartzCase {
  id: string;
  expression: string;
  zone: string;
  from: number;
  count: number;
}

export type QuartzAnswer =
  | {
      ok: true;
      times: number[] /** First UTC-offset change after `from`, or undefined. */;
      transition: number | undefined;
    }
  | { ok: false; error: string };

const JAR_CANDIDATES = ['/usr/share/java/quartz2.jar', '/usr/share/java/quartz.jar'];
const SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'QuartzNextTimes.java');

function quartzJar(): string {
  const jar = JAR_CANDIDATES.find((path) => existsSync(path));
  if (jar === undefined) {
    throw new Error(
      `Quartz is not installed (looked for ${JAR_CANDIDATES.join(', ')}): run 'apt-get install libquartz2-java' (CI installs it); the schedule tests compare against it`,
    );
  }
  return jar;
}

function run(command: string, args: string[], input?: string): string {
  const result = spawnSync(command, args, { input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (result.error !== undefined) {
    throw new Error(
      `cannot run ${command} (${result.error.message}): run 'apt-get install openjdk-17-jdk-headless libquartz2-java'`,
    );
  }
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

/** Compiles the oracle into a temporary directory, runs every case through it once, cleans up. */
export function askQuartz(cases: readonly QuartzCase[]): Map<string, QuartzAnswer> {
  const jar = quartzJar();
  const classes = mkdtempSync(join(tmpdir(), 'tickwheel-quartz-'));
  try {
    run('javac', ['-cp', jar, '-d', classes, SOURCE]);
    const input = cases.map((c) => [c.id, c.expression, c.zone, c.from, c.count].join('\t')).join('\n');
    const output = run('java', ['-cp', `${classes}:${jar}`, 'QuartzNextTimes'], `${input}\n`);
    const answers = new Map<string, QuartzAnswer>();
    for (const line of output.split('\n')) {
      if (line === '') continue;
      const [id = '', status, detail = '', transition = '-1'] = line.split('\t');
      if (status === 'OK') {
        const times = detail === '' ? [] : detail.split(',').map(Number);
        const at = Number(transition);
        answers.set(id, { ok: true, times, transition: at < 0 ? undefined : at });
      } else {
        answers.set(id, { ok: false, error: detail });
      }
    }
    return answers;
  } finally {
    rmSync(classes, { recursive: true, force: true });
  }
}
