// `fabric.routers` and `fabric.terminators` events (upstream events/dispatcher_router.go routerEventAdapter,
// dispatcher_terminator.go terminatorEventAdapter): a router coming or going, seen by the process it connects to,
// and each of its terminators with it; a terminator created, updated or deleted, from its committed change (so on
// the instance that made it), with the service's terminator counts as they are after the change.
import type { Clock } from '../lib/clock.js';
import { terminatorsOfRouter, terminatorsOfService, type TerminatorRow } from '../store/queries/terminators.js';
import type { Db, Store } from '../store/store.js';
import { recordEntityChange } from './entity-change-log.js';
import { EntityTypes } from './entity-types.js';
import type { EventDispatcher } from './dispatcher.js';
import { goJsonTime, type TerminatorEvent, type TerminatorEventType } from './event-types.js';

export interface TerminatorEventsOptions {
  dispatcher: EventDispatcher;
  store: Store;
  clock: Clock;
  /** Whether a router is connected to any process (upstream Network.ConnectedRouter). */
  isOnline(routerId: string): boolean;
  warn(fields: object, message: string): void;
}

/** A terminator as its change recorded it (crud field names: service, router, precedence, cost, hostId). */
export type TerminatorState = Readonly<Record<string, unknown>>;

const text = (value: unknown) => (typeof value === 'string' ? value : '');

export class TerminatorEvents {
  constructor(private readonly options: TerminatorEventsOptions) {}

  /** A router connected to (or left) this process: its event, then one per terminator of it. */
  routerPresence(routerId: string, online: boolean): void {
    const { dispatcher, clock } = this.options;
    const eventType = online ? 'router-online' : 'router-offline';
    if (dispatcher.wants('fabric.routers'))
      dispatcher.emit({
        namespace: 'fabric.routers',
        event_type: eventType,
        timestamp: goJsonTime(clock()),
        router_id: routerId,
        router_online: online,
      });
    if (!dispatcher.wants('fabric.terminators')) return;
    void this.options.store
      .read((db) => terminatorsOfRouter(db, routerId))
      .then(async (rows) => {
        for (const row of rows) await this.#emit(eventType, rowState(row));
      })
      .catch((error: unknown) => this.options.warn({ routerId, err: error }, 'could not build terminator events'));
  }

  /** A committed change of a terminator. */
  changed(eventType: Extract<TerminatorEventType, 'created' | 'updated' | 'deleted'>, state: TerminatorState): void {
    if (!this.options.dispatcher.wants('fabric.terminators')) return;
    void this.#emit(eventType, state).catch((error: unknown) =>
      this.options.warn({ terminatorId: state.id, err: error }, 'could not build a terminator event'),
    );
  }

  async #emit(eventType: TerminatorEventType, state: TerminatorState): Promise<void> {
    const { store, dispatcher, clock } = this.options;
    const isOnline = (routerId: string) => this.options.isOnline(routerId);
    const serviceId = text(state.service);
    const terminators = await store.read((db) => terminatorsOfService(db, serviceId));
    let usableDefault = 0;
    let usableRequired = 0;
    for (const terminator of terminators) {
      if (!isOnline(terminator.router_id)) continue;
      if (terminator.precedence === 'required') usableRequired++;
      else if (terminator.precedence === 'default') usableDefault++;
    }
    const event: TerminatorEvent = {
      namespace: 'fabric.terminators',
      event_type: eventType,
      timestamp: goJsonTime(clock()),
      service_id: serviceId,
      terminator_id: text(state.id),
      router_id: text(state.router),
      host_id: text(state.hostId),
      router_online: isOnline(text(state.router)),
      precedence: text(state.precedence) || 'default',
      static_cost: typeof state.cost === 'number' ? state.cost : 0,
      dynamic_cost: 0,
      // upstream reads the service through its cache: a service already gone counts -1.
      total_terminators: terminators.length,
      usable_default_terminators: usableDefault,
      usable_required_terminators: usableRequired,
    };
    dispatcher.emit(event);
  }
}

/** A stored terminator row in the field names its changes are recorded with. */
export function rowState(row: TerminatorRow): TerminatorState {
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    isSystem: row.is_system === 1,
    service: row.service_id,
    router: row.router_id,
    binding: row.binding,
    address: row.address,
    identity: row.instance_id,
    cost: row.cost,
    precedence: row.precedence,
    hostId: row.host_id,
  };
}

/**
 * Records terminators a router's messages created or removed (in the writing transaction, as every entity change
 * is), through the router's control channel: a bind's terminator by its hosting identity, as upstream's edge
 * handlers attribute it (handler_edge_ctrl/common.go newChangeContext), a removal by the router; one the
 * controller drops itself (a router no longer has it) by the controller. Answers the rows, so a delete's result
 * passes through.
 */
export async function recordTerminatorChanges(
  tx: Db,
  changeType: 'created' | 'deleted',
  rows: readonly TerminatorRow[],
  routerId: string | undefined,
): Promise<TerminatorRow[]> {
  const source = { type: 'ctrl.channel', method: `${changeType === 'created' ? 'create' : 'remove'}.terminator` };
  for (const row of rows) {
    const context =
      changeType === 'created' && row.host_id
        ? { author: { type: 'identity', id: row.host_id }, source }
        : routerId
          ? { author: { type: 'router', id: routerId }, source }
          : { author: { type: 'controller' }, source: { type: 'xt' } };
    await recordEntityChange(tx, {
      changeType,
      entityType: EntityTypes.terminators,
      entityId: row.id,
      ...(changeType === 'created' ? { after: rowState(row) } : { before: rowState(row) }),
      context,
      ...(routerId ? { throughRouter: routerId } : {}),
    });
  }
  return [...rows];
}
