// Which process owns a circuit that spans processes (migration 021 fabric_circuit_owners): only circuits with a
// router held elsewhere are written (one bookkeeping write when created, one when ended), so a process holding all
// of a circuit's routers pays nothing. Rows of instances that stopped beating are swept (links/router-inbox.ts).
import { formatTimestamp, type Clock } from '../../lib/clock.js';
import { liveControllerInstances } from '../../store/queries/cluster.js';
import { addCircuitOwner, circuitOwners, removeCircuitOwner } from '../../store/queries/router-inbox.js';
import { writeAreas, type Store } from '../../store/store.js';
import type { CircuitOwners } from './circuits.js';

export interface CircuitOwnersOptions {
  store: Store;
  clock: Clock;
  instanceId: string;
  instanceOfflineAfterMs: number;
  /** Whether this process holds the router's channel. */
  holds: (routerId: string) => boolean;
  onError: (error: unknown) => void;
}

const BOOKKEEPING = { bookkeeping: true, touches: writeAreas.rowsOnly };

export function storeCircuitOwners(options: CircuitOwnersOptions): CircuitOwners {
  const { store, clock, instanceId, instanceOfflineAfterMs, holds, onError } = options;
  const claimed = new Set<string>();
  return {
    async claim(circuitId, routerIds) {
      if (claimed.has(circuitId) || routerIds.every(holds)) return;
      claimed.add(circuitId);
      await store.transaction((tx) => addCircuitOwner(tx, circuitId, instanceId), BOOKKEEPING).catch(onError);
    },
    release(circuitId) {
      if (!claimed.delete(circuitId)) return;
      store.transaction((tx) => removeCircuitOwner(tx, circuitId), BOOKKEEPING).catch(onError);
    },
    async ownedElsewhere(circuitIds) {
      const since = formatTimestamp(new Date(clock().getTime() - instanceOfflineAfterMs));
      const owners = await store.read(async (db) => {
        const live = (await liveControllerInstances(db, since)).map((row) => row.id).filter((id) => id !== instanceId);
        return circuitOwners(db, circuitIds, live);
      });
      return new Set(owners.keys());
    },
  };
}
