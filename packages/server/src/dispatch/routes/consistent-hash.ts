/**
 * CONSISTENT_HASH: a hash ring with 100 virtual nodes per address, keyed by job id, so a job
 * keeps its executor while the set is unchanged and only about 1/n of the jobs move when an
 * executor joins or leaves. The hash is XXL-JOB's own (the first 4 bytes of MD5, little-endian,
 * of `SHARD-<address>-NODE-<i>` and of the job id as a decimal string), so a job lands on the
 * executor XXL-JOB would pick for the same registered addresses.
 *
 * XXL-JOB rebuilds the ring on every fire (100 MD5s per address); here rings are cached per
 * address set, which changes only when executors join or leave.
 */
import { createHash } from 'node:crypto';
import type { ExecutorAddress } from '../executor-client.js';
import { pickedOne, type Route, type RoutePick, type RouteRequest } from './route.js';

export const VIRTUAL_NODES = 100;
/** Address sets whose ring is kept; past this the cache starts over. */
const RING_CACHE_LIMIT = 64;

interface Ring {
  /** Ring positions, ascending. */
  points: Uint32Array;
  /** Index into the candidates of the address owning each point. */
  owners: Uint16Array | Uint32Array;
}

export class ConsistentHashRoute implements Route {
  readonly strategy = 'CONSISTENT_HASH';
  private readonly rings = new Map<string, Ring>();

  pick({ jobId, candidates }: RouteRequest): RoutePick {
    const ring = this.ringOf(candidates);
    const position = ringHash(String(jobId));
    const point = firstPointAtOrAfter(ring.points, position);
    const chosen = candidates[ring.owners[point]!]!;
    return pickedOne(
      this.strategy,
      chosen,
      `job ${jobId} on a ring of ${candidates.length} × ${VIRTUAL_NODES} virtual nodes`,
    );
  }

  private ringOf(candidates: readonly ExecutorAddress[]): Ring {
    const key = candidates.map((c) => c.address).join('\n');
    let ring = this.rings.get(key);
    if (ring === undefined) {
      if (this.rings.size >= RING_CACHE_LIMIT) this.rings.clear();
      ring = buildRing(candidates);
      this.rings.set(key, ring);
    }
    return ring;
  }
}

/** XXL-JOB's ring hash: MD5, bytes 0..3 read little-endian as an unsigned 32-bit number. */
export function ringHash(key: string): number {
  return createHash('md5').update(key, 'utf8').digest().readUInt32LE(0);
}

function buildRing(candidates: readonly ExecutorAddress[]): Ring {
  // A later address overwrites an earlier one on a colliding point, as XXL-JOB's TreeMap.put does.
  const owners = new Map<number, number>();
  candidates.forEach((candidate, index) => {
    for (let node = 0; node < VIRTUAL_NODES; node++) {
      owners.set(ringHash(`SHARD-${candidate.address}-NODE-${node}`), index);
    }
  });
  const points = Uint32Array.from(owners.keys()).sort();
  const owned = candidates.length <= 0xffff ? new Uint16Array(points.length) : new Uint32Array(points.length);
  points.forEach((point, i) => {
    owned[i] = owners.get(point)!;
  });
  return { points, owners: owned };
}

/** Index of the first point >= position, wrapping to 0 past the last (XXL-JOB's tailMap). */
function firstPointAtOrAfter(points: Uint32Array, position: number): number {
  let low = 0;
  let high = points.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (points[mid]! < position) low = mid + 1;
    else high = mid;
  }
  return low === points.length ? 0 : low;
}
