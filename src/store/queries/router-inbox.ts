// Control messages for a router held by another process (migration 021): the sender adds a row addressed to the
// holding instance; the holder takes its pending rows, sends each on the router's channel and, for a request, writes
// the reply (or why there is none) into the row, which the sender reads and removes. All of it is bookkeeping: no
// cache holds these rows.
import { typed } from '../connection.js';
import type { Db } from '../store.js';

export type InboxState = 'pending' | 'taken' | 'replied' | 'failed';

export interface InboxRow {
  id: string;
  routerId: string;
  message: string;
  /** 0: nothing is awaited (a send). */
  timeoutMs: number;
}

export interface NewInboxRow extends InboxRow {
  instanceId: string;
  senderInstanceId: string;
  createdAt: string;
}

export async function pendingInboxCount(db: Db, instanceId: string): Promise<number> {
  const row = await typed(db)
    .selectFrom('router_inbox')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('instance_id', '=', instanceId)
    .where('state', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function addInboxRow(tx: Db, row: NewInboxRow): Promise<void> {
  await typed(tx)
    .insertInto('router_inbox')
    .values({
      id: row.id,
      instance_id: row.instanceId,
      sender_instance_id: row.senderInstanceId,
      router_id: row.routerId,
      message: row.message,
      timeout_ms: row.timeoutMs,
      state: 'pending',
      created_at: row.createdAt,
    })
    .execute();
}

/** Whether any row waits for `instanceId` (one indexed probe: the holder's poll). */
export async function hasPendingInbox(db: Db, instanceId: string): Promise<boolean> {
  const row = await typed(db)
    .selectFrom('router_inbox')
    .select('id')
    .where('instance_id', '=', instanceId)
    .where('state', '=', 'pending')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Up to `limit` pending rows of `instanceId` (oldest first), but those in `skip`: read only, as one process alone
 * (the instance) delivers them and remembers which it is delivering, so no write stands between a row and its router.
 */
export async function pendingInboxRows(
  db: Db,
  instanceId: string,
  limit: number,
  skip: readonly string[],
): Promise<InboxRow[]> {
  let query = typed(db)
    .selectFrom('router_inbox')
    .select(['id', 'router_id', 'message', 'timeout_ms'])
    .where('instance_id', '=', instanceId)
    .where('state', '=', 'pending');
  if (skip.length > 0) query = query.where('id', 'not in', skip);
  const rows = await query.orderBy('created_at').limit(limit).execute();
  return rows.map((row) => ({ id: row.id, routerId: row.router_id, message: row.message, timeoutMs: row.timeout_ms }));
}

/** The holder's answer to a request: the router's reply, or why none came. A row its sender gave up on is gone. */
export async function answerInboxRow(tx: Db, id: string, state: 'replied' | 'failed', reply: string): Promise<void> {
  await typed(tx).updateTable('router_inbox').set({ state, reply }).where('id', '=', id).execute();
}

export async function inboxAnswer(
  db: Db,
  id: string,
): Promise<{ state: InboxState; reply: string | null } | undefined> {
  const row = await typed(db)
    .selectFrom('router_inbox')
    .select(['state', 'reply'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row && { state: inboxState(row.state), reply: row.reply };
}

export async function removeInboxRow(tx: Db, id: string): Promise<void> {
  await typed(tx).deleteFrom('router_inbox').where('id', '=', id).execute();
}

/** Rows older than `before`, or sent by or to an instance not in `liveInstanceIds`: nobody will answer or read them. */
export async function sweepInbox(tx: Db, before: string, liveInstanceIds: readonly string[]): Promise<void> {
  await typed(tx).deleteFrom('router_inbox').where('created_at', '<', before).execute();
  if (liveInstanceIds.length === 0) return;
  await typed(tx)
    .deleteFrom('router_inbox')
    .where((eb) =>
      eb.or([eb('instance_id', 'not in', liveInstanceIds), eb('sender_instance_id', 'not in', liveInstanceIds)]),
    )
    .execute();
}

const inboxState = (state: string): InboxState =>
  state === 'taken' || state === 'replied' || state === 'failed' ? state : 'pending';
