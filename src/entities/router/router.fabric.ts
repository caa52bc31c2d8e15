// Routers as the fabric API shows them (`/fabric/v1/routers`): the same table as `/routers`, with the live state of
// the control channel (upstream `api_impl/router_api_model.go` RouterModelMapper) instead of enrollment fields.
import { boolean, defineEntity, integer, text } from '../../crud/define-entity.js';
import type { EntityRules } from '../../crud/entity-rules.js';
import { edgeRouterLiveStates, type EdgeRouterLiveState } from '../../policy/session-edge-routers.js';
import { edgeRouter } from '../edge-router/edge-router.definition.js';
import { mustGet } from '../../lib/collections.js';

/**
 * What the fabric view reads of a router's live state beyond `isOnline`: the version it reported in its hello and
 * its link listeners (hello header 10), as the control plane stores them (router presence, migration 018).
 */
export type FabricLiveState = Omit<EdgeRouterLiveState, 'versionInfo'> & {
  versionInfo?: { version: string; revision: string; buildDate: string; os: string; arch: string };
  listenerAddresses?: { address: string; protocol: string }[];
};

/**
 * The fabric fields of a router's live state. One that is not connected has no listeners (a nil slice upstream,
 * written null) and no versionInfo (omitempty).
 */
export function fabricLiveFields(state: FabricLiveState): Record<string, unknown> {
  const connected = state.isOnline;
  return {
    connected,
    listenerAddresses:
      connected && state.listenerAddresses
        ? state.listenerAddresses.map(({ address, protocol }) => ({ address, protocol }))
        : null,
    ...(connected && state.versionInfo ? { versionInfo: state.versionInfo } : {}),
  };
}

const fabricRouterRules: EntityRules = {
  async extend({ db }, routers) {
    const states = await edgeRouterLiveStates(
      db,
      routers.map((row) => row.id),
    );
    return routers.map((row) => fabricLiveFields(mustGet(states, row.id)));
  },
};

export const fabricRouter = defineEntity({
  type: 'router',
  path: 'routers',
  table: 'routers',
  duplicateName: 'index',
  idKind: 'shortId',
  fields: {
    name: text({ unique: true }),
    fingerprint: text({ unique: true, writable: 'never' }),
    cost: integer({ fallback: () => 0 }),
    noTraversal: boolean(),
    disabled: boolean(),
  },
  links: (entity) => ({ terminators: `./routers/${String(entity.id)}/terminators` }),
  // The fabric router store's live-state symbol (v1.1.8 lists it among the filterable fields), read as the edge
  // routers' `connected` is, so both change together when the control plane stores presence.
  symbols: { connected: edgeRouter.symbols.connected! },
  rules: fabricRouterRules,
});
