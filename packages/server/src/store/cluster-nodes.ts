/** Server nodes of a cluster and their heartbeats; leases (leases.ts) decide who owns what. */
import { sql } from 'kysely';
import type { StoreConnection } from './connection.js';
import { databaseNowMs } from './leases.js';
import type { ClusterNodeRow } from './schema.js';

export interface NodeHeartbeat {
  nodeId: string;
  address: string;
  startedAt: number;
}

/** The nodes alive as of one read, and the database's clock at that read. */
export interface LiveNodes {
  /** Node ids, sorted. */
  nodeIds: string[];
  /** The database's now at the read (or the `nowMs` passed). */
  nowMs: number;
}

export function createClusterNodeRepository(conn: StoreConnection) {
  const { db } = conn;

  /**
   * Inserts the node or refreshes its heartbeat and address. Without `nowMs` the heartbeat is
   * the database's clock, as every node's then is.
   */
  async function heartbeatNode(node: NodeHeartbeat, nowMs?: number): Promise<void> {
    const at = nowMs === undefined ? databaseNowMs(conn.dialect) : sql<number>`${nowMs}`;
    const insert = db.insertInto('cluster_node').values({
      node_id: node.nodeId,
      address: node.address,
      started_at: node.startedAt,
      heartbeat_at: at,
    });
    const refresh = { address: node.address, started_at: node.startedAt, heartbeat_at: at };
    if (conn.dialect === 'mysql') await insert.onDuplicateKeyUpdate(refresh).execute();
    else await insert.onConflict((oc) => oc.column('node_id').doUpdateSet(refresh)).execute();
  }

  /** Nodes that sent a heartbeat after `aliveSince`, by id. */
  async function listAliveNodes(aliveSince: number): Promise<ClusterNodeRow[]> {
    return db
      .selectFrom('cluster_node')
      .selectAll()
      .where('heartbeat_at', '>', aliveSince)
      .orderBy('node_id')
      .execute();
  }

  /**
   * The nodes whose last heartbeat is less than `windowMs` old, by id, in one statement that
   * also reads the database's clock (or uses `nowMs`).
   */
  async function listLiveNodes(windowMs: number, nowMs?: number): Promise<LiveNodes> {
    const now = nowMs === undefined ? databaseNowMs(conn.dialect) : sql<number>`${nowMs}`;
    const rows = await db
      .selectFrom('cluster_node')
      .select(['node_id', now.as('db_now')])
      .where(
        'heartbeat_at',
        '>',
        nowMs === undefined ? sql<number>`${now} - ${sql.lit(windowMs)}` : nowMs - windowMs,
      )
      .orderBy('node_id')
      .execute();
    return {
      nodeIds: rows.map((row) => row.node_id),
      nowMs: rows[0] === undefined ? (nowMs ?? Number.NaN) : Number(rows[0].db_now),
    };
  }

  async function removeNode(nodeId: string): Promise<boolean> {
    const result = await db.deleteFrom('cluster_node').where('node_id', '=', nodeId).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** Deletes nodes silent since `before`; returns how many. */
  async function deleteDeadNodes(before: number): Promise<number> {
    const result = await db.deleteFrom('cluster_node').where('heartbeat_at', '<=', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  return { heartbeatNode, listAliveNodes, listLiveNodes, removeNode, deleteDeadNodes };
}

export type ClusterNodeRepository = ReturnType<typeof createClusterNodeRepository>;
