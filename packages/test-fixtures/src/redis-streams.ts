/**
 * The server's side of the redis transport, as far as executor tests need it, on the real Redis
 * of the test environment (`TICKWHEEL_TEST_REDIS`, default `redis://127.0.0.1:6379`): it writes
 * runs and calls to an executor's streams as the contract says, waits for the answers on a reply
 * channel of its own, and looks at what the executor left pending, its connections and its keys.
 */
import { randomUUID } from 'node:crypto';
import {
  CALL_STREAM_MAX_LEN,
  callStreamKey,
  type PullAnswerFrame,
  type PullCall,
  parsePullFrame,
  RUN_GROUP,
  RUN_STREAM_MAX_LEN,
  replyChannel,
  runStreamKey,
  STREAM_TTL_SECONDS,
} from '@tickwheel/protocol';
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.TICKWHEEL_TEST_REDIS ?? 'redis://127.0.0.1:6379';

/** The name the executor of `instance` gives its Redis connections. */
export function connectionNameOf(instance: string): string {
  return `tickwheel-executor:${instance}`;
}

export class RedisStreamsServer {
  /** Commands: XADD, XINFO, CLIENT, DEL. */
  readonly redis = new Redis(REDIS_URL, { lazyConnect: true });
  /** In subscriber mode on `channel`. */
  private readonly subscriber = new Redis(REDIS_URL, { lazyConnect: true });
  /** This stand-in's own reply channel, as a server node's `tickwheel:reply:<node id>`. */
  readonly channel = replyChannel(`test-${randomUUID()}`);
  /** Every answer frame published on the channel, in order. */
  readonly answers: PullAnswerFrame[] = [];
  private nextId = 1;
  private readonly pending = new Map<number, (frame: PullAnswerFrame) => void>();
  /** Instances whose streams are deleted at `close()`. */
  private readonly instances = new Set<string>();

  async start(): Promise<this> {
    await this.subscriber.subscribe(this.channel);
    this.subscriber.on('message', (_channel: string, text: string) => {
      const frame = parsePullFrame(text);
      if (frame?.t !== 'answer') return;
      this.answers.push(frame);
      this.pending.get(frame.id)?.(frame);
      this.pending.delete(frame.id);
    });
    return this;
  }

  /** Deletes the streams of every instance written to or watched, and closes the connections. */
  async close(): Promise<void> {
    for (const instance of this.instances) {
      await this.redis.del(runStreamKey(instance), callStreamKey(instance));
    }
    this.subscriber.disconnect();
    await this.redis.quit();
  }

  /** Deletes the executor's streams at `close()` even when the test wrote nothing to them. */
  watch(instance: string): void {
    this.instances.add(instance);
  }

  /** XADDs a run as the server does; `body` is sent as is when a string, else as JSON. */
  async writeRun(instance: string, body: unknown, logId?: number | string): Promise<string> {
    this.watch(instance);
    const key = runStreamKey(instance);
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const id = logId ?? (body as { logId?: number }).logId;
    const fields = id === undefined ? ['body', text] : ['logId', String(id), 'body', text];
    const entryId = await this.redis.xadd(key, 'MAXLEN', '~', RUN_STREAM_MAX_LEN, '*', ...fields);
    await this.redis.expire(key, STREAM_TTL_SECONDS);
    return entryId!;
  }

  /** XADDs a raw call entry (fields as given). */
  async writeCallEntry(instance: string, fields: Record<string, string>): Promise<string> {
    this.watch(instance);
    const key = callStreamKey(instance);
    const entryId = await this.redis.xadd(
      key,
      'MAXLEN',
      '~',
      CALL_STREAM_MAX_LEN,
      '*',
      ...Object.entries(fields).flat(),
    );
    await this.redis.expire(key, STREAM_TTL_SECONDS);
    return entryId!;
  }

  /** Writes one call with `replyTo` = this channel and resolves with the answer published for it. */
  async call(
    instance: string,
    call: PullCall | string,
    body: unknown,
    timeoutMs = 10_000,
  ): Promise<PullAnswerFrame> {
    const id = this.nextId++;
    const answered = new Promise<PullAnswerFrame>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no answer to ${call} (id ${id}) in ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, (frame) => {
        clearTimeout(timer);
        resolve(frame);
      });
    });
    await this.writeCallEntry(instance, {
      frame: JSON.stringify({ t: 'call', id, call, body, replyTo: this.channel }),
    });
    return answered;
  }

  /**
   * Waits until every entry written to `key` so far was delivered to the group and acknowledged
   * (an empty XPENDING alone is also what an entry not yet read looks like).
   */
  async allAcknowledged(key: string, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const stream = (await this.redis.xinfo('STREAM', key)) as unknown[];
      const lastWritten = stream[stream.indexOf('last-generated-id') + 1] as string;
      const groups = (await this.redis.xinfo('GROUPS', key)) as unknown[][];
      const group = groups.find((g) => g[1] === RUN_GROUP) ?? [];
      const lastDelivered = group[group.indexOf('last-delivered-id') + 1] as string;
      const pending = group[group.indexOf('pending') + 1] as number;
      if (lastDelivered === lastWritten && pending === 0) return;
      if (Date.now() > deadline) {
        throw new Error(
          `${key}: written up to ${lastWritten}, delivered up to ${lastDelivered}, ${pending} pending`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** The ids of the Redis clients named `name`. */
  async clientIds(name: string): Promise<string[]> {
    const list = (await this.redis.client('LIST')) as string;
    return list
      .split('\n')
      .filter((line) => line.split(' ').includes(`name=${name}`))
      .map((line) => /(?:^| )id=(\d+)/.exec(line)![1]!);
  }

  /** Waits until a client named `name` is blocked in a read (CLIENT LIST flag `b`). */
  async blockedReader(name: string, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const list = (await this.redis.client('LIST')) as string;
      const blocked = list.split('\n').some((line) => {
        const fields = line.split(' ');
        return (
          fields.includes(`name=${name}`) && fields.some((f) => f.startsWith('flags=') && f.includes('b'))
        );
      });
      if (blocked) return;
      if (Date.now() > deadline)
        throw new Error(`no client named ${name} blocked in a read after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** CLIENT KILLs every connection named `name` (Redis kills by id, not by name); the count killed. */
  async killClients(name: string): Promise<number> {
    const ids = await this.clientIds(name);
    for (const id of ids) await this.redis.client('KILL', 'ID', id);
    return ids.length;
  }
}

export async function startRedisStreamsServer(): Promise<RedisStreamsServer> {
  return new RedisStreamsServer().start();
}
