// Entity changes, each recorded once and emitted once cluster-wide: the change is written to `entity_changes` in the
// transaction that makes it (crud/entity-writes.ts calls `recordEntityChange`), and the process that committed that
// transaction emits its `entityChange` events after the commit (upstream events/dispatcher_entity_change.go: a
// created/updated/deleted event with the entity before and after, then a `committed` event with the same id). A
// rolled-back transaction records and emits nothing; another instance never emits what it did not commit.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { currentChangeContext, type ChangeContext, type ChangeSource } from '../lib/change-context.js';
import { formatTimestamp, type Clock } from '../lib/clock.js';
import { insertEntityChange, insertEntityChanges, type EntityChangeInsert } from '../store/queries/entity-changes.js';
import { wrapTransactions, type Db, type Store } from '../store/store.js';
import { goJsonTime, type EntityChangeEvent } from './event-types.js';

export type EntityChangeType = 'created' | 'updated' | 'deleted';

export interface EntityChangeFact {
  changeType: EntityChangeType;
  /** upstream's store entity type (`identities`, `servicePolicies`, …). */
  entityType: string;
  entityId: string;
  /** The entity as stored before the change (absent on create) and after it (absent on delete). */
  before?: Readonly<Record<string, unknown>> | undefined;
  after?: Readonly<Record<string, unknown>> | undefined;
  /** API names of the fields the request set. */
  changedFields?: readonly string[];
  /** Who made it, where that is not the running request's caller (a router's own terminators). */
  context?: ChangeContext;
  /** The router whose control channel the change came through: its addresses join the source. */
  throughRouter?: string;
}

/** An event to emit after the commit, with the fact it came from (whose states still hold what events leave out). */
export interface CommittedChange {
  event: EntityChangeEvent;
  fact: EntityChangeFact;
}

interface Frame {
  log: EntityChangeLog;
  /** The transaction the frame's changes are written in, at its end (written sooner when recorded in another). */
  tx: Db;
  pending: CommittedChange[];
  /** Change rows not written yet, with the metadata whose author each names once written. */
  rows: { row: EntityChangeInsert; nameAuthor: boolean; metadata: Record<string, unknown>; author: Author }[];
  /** Authors named once their rows' writes are answered (on PostgreSQL, with the commit: sent ahead). */
  named: Promise<void>[];
}

type Author = ChangeContext['author'];

const frames = new AsyncLocalStorage<Frame>();

/**
 * Fields whose values never leave the store, in the record or in entityChange events: credentials and secrets, and
 * session tokens (upstream's API session state leaves its token out too; the edge.* session events carry it).
 */
const SECRET_FIELDS = new Set(['password', 'salt', 'secret', 'recoveryCodes', 'privateKey', 'jwt', 'token']);

const withoutSecrets = (state: Readonly<Record<string, unknown>> | undefined) =>
  state && Object.fromEntries(Object.entries(state).filter(([key]) => !SECRET_FIELDS.has(key)));

export interface EntityChangeLogOptions {
  clock: Clock;
  instanceId: string;
  /** The controller's version, in every event's metadata as upstream's global metadata. */
  version: string;
  /** Where committed changes' events go (the dispatcher); called after the commit, never inside it. */
  emit(change: CommittedChange): void;
}

export class EntityChangeLog {
  /** A held router's channel addresses (set once the control plane exists). */
  channelAddresses: (routerId: string) => { local: string; remote: string } | undefined = () => undefined;

  constructor(readonly options: EntityChangeLogOptions) {}

  /** The store with each write transaction's recorded changes emitted after it commits. */
  wrap(store: Store): Store {
    const wrapped = wrapTransactions(store, (run) => run());
    return {
      ...wrapped,
      transaction: async (work, writeOptions) => {
        let pending: CommittedChange[] = [];
        let named: Promise<void>[] = [];
        const result = await store.transaction(async (tx) => {
          // A transaction run again (a conflict retried) records afresh.
          const frame: Frame = { log: this, tx, pending: [], rows: [], named: [] };
          pending = frame.pending;
          named = frame.named;
          const result = await frames.run(frame, () => work(tx));
          await writeRows(frame);
          return result;
        }, writeOptions);
        // Committed: every record is answered, so the authors are named.
        await Promise.all(named);
        for (const change of pending) this.options.emit(change);
        return result;
      },
    };
  }
}

/**
 * Records a change inside the transaction making it, and queues its events for after the commit. Outside a store
 * wrapped by an EntityChangeLog (tests that build a bare store) nothing is recorded.
 */
export async function recordEntityChange(tx: Db, fact: EntityChangeFact): Promise<void> {
  const frame = frames.getStore();
  if (!frame) return;
  const { clock, instanceId, version } = frame.log.options;
  const context = fact.context ?? currentChangeContext();
  const given = context.author;
  // upstream's change contexts name their author (an identity's name, a router's): read as the row is written.
  const nameAuthor = given.id !== undefined && given.name === undefined;
  const channel = fact.throughRouter === undefined ? undefined : frame.log.channelAddresses(fact.throughRouter);
  const source = sourceInUpstreamOrder({
    ...context.source,
    ...(channel ? { localAddr: channel.local, remoteAddr: channel.remote } : {}),
  });
  const now = clock();
  const at = formatTimestamp(now);
  const eventId = randomUUID();
  const initialState = withoutSecrets(fact.before);
  const finalState = withoutSecrets(fact.after);
  const row: EntityChangeInsert = {
    id: eventId,
    created_at: at,
    updated_at: at,
    change_type: fact.changeType,
    entity_type: fact.entityType,
    entity_id: fact.entityId,
    author_type: given.type,
    author_id: given.id ?? null,
    author_name: given.name ?? null,
    source_type: source.type,
    source: JSON.stringify(source),
    changed_fields: JSON.stringify(fact.changedFields ?? []),
    initial_state: initialState ? JSON.stringify(initialState) : null,
    final_state: finalState ? JSON.stringify(finalState) : null,
    instance_id: instanceId,
  };
  const timestamp = goJsonTime(now);
  const metadata: Record<string, unknown> = {
    author: undefined,
    source,
    ...(context.traceId ? { trace_id: context.traceId } : {}),
    version,
  };
  if (tx === frame.tx) {
    // Written with the transaction's other changes at its end, in one statement (writeRows).
    frame.rows.push({ row, nameAuthor, metadata, author: given });
  } else {
    const { authorName } = await insertEntityChange(tx, row, nameAuthor);
    frame.named.push(authorName.then((name) => void (metadata.author = authorOf(given, name))));
  }
  frame.pending.push(
    {
      event: {
        namespace: 'entityChange',
        eventId,
        eventType: fact.changeType,
        timestamp,
        metadata,
        entityType: fact.entityType,
        isParentEvent: false,
        // upstream writes the absent side as null (its state is a typed nil behind an interface).
        initialState: initialState ?? null,
        finalState: finalState ?? null,
      },
      fact,
    },
    // After the commit upstream sends `committed` with the same id; subscriptions filter it by entity type, then
    // clear that and the parent flag (subscriptions.ts).
    {
      event: {
        namespace: 'entityChange',
        eventId,
        eventType: 'committed',
        timestamp,
        entityType: fact.entityType,
        isParentEvent: false,
      },
      fact,
    },
  );
}

/** Writes the frame's change rows and names their events' authors as the rows store them. */
async function writeRows(frame: Frame): Promise<void> {
  if (frame.rows.length === 0) return;
  const { authorNames } = await insertEntityChanges(frame.tx, frame.rows);
  const rows = frame.rows;
  frame.named.push(
    authorNames.then((names) => {
      for (const { row, metadata, author } of rows) metadata.author = authorOf(author, names.get(row.id) ?? null);
    }),
  );
}

/** An event's author: as given, with the name the row stored (read as it was written) when there is one. */
function authorOf(given: Author, storedName: string | null): Record<string, unknown> {
  const author = { ...given, ...(storedName !== null ? { name: storedName } : {}) };
  return {
    type: author.type,
    ...(author.id ? { id: author.id } : {}),
    ...(author.name ? { name: author.name } : {}),
  };
}

/** upstream's change.Source fields in its declaration order (Go writes a struct so), empty ones left out. */
function sourceInUpstreamOrder(source: ChangeSource): ChangeSource {
  return {
    type: source.type,
    ...(source.auth ? { auth: source.auth } : {}),
    ...(source.localAddr ? { localAddr: source.localAddr } : {}),
    ...(source.remoteAddr ? { remoteAddr: source.remoteAddr } : {}),
    ...(source.method ? { method: source.method } : {}),
  };
}
