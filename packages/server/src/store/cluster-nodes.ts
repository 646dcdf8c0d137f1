/** Server nodes of a cluster and their heartbeats; leases (leases.ts) decide who owns what. */
import type { StoreConnection } from './connection.js';
import type { ClusterNodeRow } from './schema.js';

export interface NodeHeartbeat {
  nodeId: string;
  address: string;
  startedAt: number;
}

export function createClusterNodeRepository(conn: StoreConnection) {
  const { db } = conn;

  /** Inserts the node or refreshes its heartbeat and address. */
  async function heartbeatNode(node: NodeHeartbeat, nowMs: number): Promise<void> {
    const insert = db.insertInto('cluster_node').values({
      node_id: node.nodeId,
      address: node.address,
      started_at: node.startedAt,
      heartbeat_at: nowMs,
    });
    const refresh = { address: node.address, started_at: node.startedAt, heartbeat_at: nowMs };
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

  async function removeNode(nodeId: string): Promise<boolean> {
    const result = await db.deleteFrom('cluster_node').where('node_id', '=', nodeId).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** Deletes nodes silent since `before`; returns how many. */
  async function deleteDeadNodes(before: number): Promise<number> {
    const result = await db.deleteFrom('cluster_node').where('heartbeat_at', '<=', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  return { heartbeatNode, listAliveNodes, removeNode, deleteDeadNodes };
}

export type ClusterNodeRepository = ReturnType<typeof createClusterNodeRepository>;
