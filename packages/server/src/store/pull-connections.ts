/**
 * Which server node holds each pull executor's connection (`http-pull`, migration 0013). The
 * node an executor connected to writes the row; any node reads it to relay a call there.
 */
import type { StoreConnection } from './connection.js';

/** The node holding an instance's connection, and where it is reached. */
export interface PullHolder {
  nodeId: string;
  /** The node's advertised base URL (`cluster_node.address`). */
  address: string;
}

export function createPullConnectionRepository(conn: StoreConnection) {
  const { db } = conn;

  /** Records that `nodeId` holds the connection of `instance` now (replacing any other node's row). */
  async function recordPullConnection(instance: string, nodeId: string, connectedAt: number): Promise<void> {
    const insert = db
      .insertInto('pull_connection')
      .values({ instance, node_id: nodeId, connected_at: connectedAt });
    const refresh = { node_id: nodeId, connected_at: connectedAt };
    if (conn.dialect === 'mysql') await insert.onDuplicateKeyUpdate(refresh).execute();
    else await insert.onConflict((oc) => oc.column('instance').doUpdateSet(refresh)).execute();
  }

  /** Deletes the row of `instance` if `nodeId` still holds it; true when it did. */
  async function removePullConnection(instance: string, nodeId: string): Promise<boolean> {
    const result = await db
      .deleteFrom('pull_connection')
      .where('instance', '=', instance)
      .where('node_id', '=', nodeId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** Deletes every row of `nodeId` (its stop); returns how many. */
  async function removeNodePullConnections(nodeId: string): Promise<number> {
    const result = await db.deleteFrom('pull_connection').where('node_id', '=', nodeId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * The node holding `instance`'s connection, if that node's heartbeat is later than
   * `aliveSince` (the rows of dead nodes are ignored).
   */
  async function findPullHolder(instance: string, aliveSince: number): Promise<PullHolder | undefined> {
    const row = await db
      .selectFrom('pull_connection')
      .innerJoin('cluster_node', 'cluster_node.node_id', 'pull_connection.node_id')
      .select(['pull_connection.node_id as node_id', 'cluster_node.address as address'])
      .where('pull_connection.instance', '=', instance)
      .where('cluster_node.heartbeat_at', '>', aliveSince)
      .executeTakeFirst();
    return row === undefined ? undefined : { nodeId: row.node_id, address: row.address };
  }

  return { recordPullConnection, removePullConnection, removeNodePullConnections, findPullHolder };
}

export type PullConnectionRepository = ReturnType<typeof createPullConnectionRepository>;
