// Every circuit of this process recorded in the store while it lives (migration 022 fabric_circuits), so any process
// or instance lists, shows and finds the owner of any circuit (docs/reference/router-control-plane-links.md §5.8).
// Written behind the dial: a circuit is answered first and its row joins the next write, one bookkeeping
// transaction for every circuit created, moved or ended within `delayMs` (or `batchSize` of them at once); a circuit
// that ends before its write costs nothing. A circuit whose path has a router another process holds is written before
// its dial is answered, as that router's process may ask about it at once (CircuitConfirmation) and must find its
// owner. Bounded by the circuits held (one pending change per circuit). A failed write is tried again a second later;
// this process's rows go when it stops, a dead one's are swept (ctrl/router-inbox.ts sweep) and never listed.
import { formatTimestamp, type Clock } from '../../lib/clock.js';
import { isJsonObject } from '../../lib/object-path.js';
import {
  deleteFabricCircuits,
  deleteFabricCircuitsOf,
  fabricCircuitOwners,
  liveFabricCircuit,
  liveFabricCircuits,
  putFabricCircuits,
  type FabricCircuitRow,
} from '../../store/queries/fabric-circuits.js';
import { writeAreas, type Store } from '../../store/store.js';
import type { CircuitSummary } from '../network-views.js';
import type { Circuit } from './circuit-registry.js';

export interface CircuitRecordsOptions {
  store: Store;
  clock: Clock;
  instanceId: string;
  /** An instance not seen for this long is dead (system/instance-heartbeat.ts OFFLINE_AFTER_MS): its rows are not shown. */
  instanceOfflineAfterMs: number;
  /** Whether this process holds the router's channel. */
  holds: (routerId: string) => boolean;
  onError: (error: unknown) => void;
  /** How long a change waits for others to share its write (default 25 ms), and how many write at once (500). */
  delayMs?: number;
  batchSize?: number;
}

/** A stored circuit and the instance that owns it. */
export interface RecordedCircuit {
  summary: CircuitSummary;
  instanceId: string;
}

const BOOKKEEPING = { bookkeeping: true, touches: writeAreas.rowsOnly };
const RETRY_MS = 1000;

export class CircuitRecords {
  readonly #options: CircuitRecordsOptions;
  /** Changes not yet written, one per circuit: the circuit (its state when written), or null to remove its row. */
  readonly #pending = new Map<string, Circuit | null>();
  /** Circuits whose row may be in the store (written, or being written). */
  readonly #stored = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  /** The write waiting for the one under way, which takes whatever is pending when it starts. */
  #queued: Promise<void> | undefined;
  /** The last write asked for: settled once everything asked for so far was written (or failed). */
  #last: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: CircuitRecordsOptions) {
    this.#options = options;
  }

  get instanceId(): string {
    return this.#options.instanceId;
  }

  /** A circuit created or moved: written behind, or before this resolves when a router of its path is held elsewhere. */
  put(circuit: Circuit): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#pending.set(circuit.id, circuit);
    if (!circuit.path.routerIds.every(this.#options.holds)) return this.flush();
    this.#soon();
    return Promise.resolve();
  }

  /** A circuit ended: its row goes with the next write (a circuit never written costs nothing). */
  ended(circuitId: string): void {
    if (this.#closed) return;
    if (this.#stored.has(circuitId)) this.#pending.set(circuitId, null);
    else this.#pending.delete(circuitId);
    this.#soon();
  }

  /** Writes every change made so far (a read after it sees this process's circuits as they are). */
  flush(): Promise<void> {
    if (!this.#queued && this.#pending.size > 0) {
      const queued = this.#last.then(() => {
        this.#queued = undefined;
        return this.#write();
      });
      this.#queued = this.#last = queued;
    }
    return this.#last;
  }

  /** This process stops: its circuits go with it (as upstream's with its controller), so do their rows. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#pending.clear();
    await this.#last;
    const { store, instanceId, onError } = this.#options;
    await store.transaction((tx) => deleteFabricCircuitsOf(tx, instanceId), BOOKKEEPING).catch(onError);
  }

  /** Every circuit of a live instance, this process's as they are now, oldest first. */
  async list(): Promise<CircuitSummary[]> {
    await this.flush();
    const rows = await this.#options.store.read((db) => liveFabricCircuits(db, this.#liveSince()));
    return rows.map(summaryOf);
  }

  /** One circuit of a live instance, with its owner. */
  async find(id: string): Promise<RecordedCircuit | undefined> {
    await this.flush();
    const row = await this.#options.store.read((db) => liveFabricCircuit(db, id, this.#liveSince()));
    return row && { summary: summaryOf(row), instanceId: row.instance_id };
  }

  /** Those of these circuits another live process owns. */
  async ownedElsewhere(circuitIds: readonly string[]): Promise<Set<string>> {
    const { store, instanceId } = this.#options;
    const owners = await store.read((db) => fabricCircuitOwners(db, circuitIds, this.#liveSince(), instanceId));
    return new Set(owners.keys());
  }

  #liveSince(): string {
    const { clock, instanceOfflineAfterMs } = this.#options;
    return formatTimestamp(new Date(clock().getTime() - instanceOfflineAfterMs));
  }

  #soon(delayMs = this.#options.delayMs ?? 25): void {
    if (this.#pending.size >= (this.#options.batchSize ?? 500)) void this.flush();
    else if (this.#pending.size > 0)
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        void this.flush();
      }, delayMs).unref();
  }

  async #write(): Promise<void> {
    const { store, instanceId, onError } = this.#options;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = new Map(this.#pending);
    this.#pending.clear();
    const rows: FabricCircuitRow[] = [];
    const removed: string[] = [];
    for (const [id, circuit] of batch) {
      if (circuit) rows.push(rowOf(circuit, instanceId));
      else removed.push(id);
      if (circuit) this.#stored.add(id);
      else this.#stored.delete(id);
    }
    try {
      await store.transaction(async (tx) => {
        await deleteFabricCircuits(tx, removed);
        await putFabricCircuits(tx, rows);
      }, BOOKKEEPING);
    } catch (error) {
      onError(error);
      if (this.#closed) return;
      // Tried again, unless a later change of the same circuit took its place.
      for (const [id, circuit] of batch) {
        if (this.#pending.has(id)) continue;
        this.#pending.set(id, circuit);
        if (!circuit) this.#stored.add(id);
      }
      this.#soon(RETRY_MS);
    }
  }
}

function rowOf(circuit: Circuit, instanceId: string): FabricCircuitRow {
  return {
    id: circuit.id,
    instance_id: instanceId,
    client_id: circuit.clientId,
    session_id: circuit.sessionId ?? null,
    service_id: circuit.serviceId,
    terminator_id: circuit.terminatorId,
    tags: JSON.stringify(circuit.tags),
    router_ids: JSON.stringify(circuit.path.routerIds),
    link_ids: JSON.stringify(circuit.path.linkIds),
    created_at: formatTimestamp(new Date(circuit.createdAt)),
    updated_at: formatTimestamp(new Date(circuit.updatedAt)),
  };
}

/** A row as `/fabric/v1/circuits` shows it (circuit-registry.ts circuitSummary: the same for a process's own). */
function summaryOf(row: FabricCircuitRow): CircuitSummary {
  return {
    id: row.id,
    clientId: row.client_id,
    serviceId: row.service_id,
    terminatorId: row.terminator_id,
    ...(row.session_id === null ? {} : { sessionId: row.session_id }),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    tags: stringsOf(row.tags),
    path: { routerIds: listOf(row.router_ids), linkIds: listOf(row.link_ids) },
  };
}

/** Rows are written only by this controller's instances: a malformed one shows as empty rather than failing a list. */
function parsed(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

function listOf(json: string): string[] {
  const value = parsed(json);
  return Array.isArray(value) ? value.filter((item) => typeof item === 'string') : [];
}

function stringsOf(json: string): Record<string, string> {
  const value = parsed(json);
  if (!isJsonObject(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}
