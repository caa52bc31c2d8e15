// What the fabric REST API reads of the network's links and circuits (upstream keeps both in the controller's memory,
// `controller/network`): fabric/links and fabric/circuits implement these views from the store, so every process and
// instance answers alike; a controller without them shows an empty network.

/** One circuit as `GET /fabric/v1/circuits` shows it (upstream `api_impl/circuit_api_model.go` MapCircuitToRestModel). */
export interface CircuitSummary {
  id: string;
  /** The dialling client's id ('' when none, then left out of the answer as upstream's omitempty does). */
  clientId: string;
  serviceId: string;
  terminatorId: string;
  /** The Dial session it was created with (upstream's circuit ClientId token); absent for circuits without one. */
  sessionId?: string;
  createdAt: Date;
  updatedAt: Date;
  /** The circuit's tags (string values), `{}` when none. */
  tags: Readonly<Record<string, string>>;
  /** Routers in path order (first: the initiating router), and the links between them (one fewer). */
  path: { routerIds: readonly string[]; linkIds: readonly string[] };
}

export interface CircuitsView {
  /** Every circuit this controller knows, in any order; the REST side filters, sorts and pages. */
  list(): Promise<readonly CircuitSummary[]>;
  get(id: string): Promise<CircuitSummary | undefined>;
  /**
   * Tears the circuit down as upstream's `Network.RemoveCircuit(id, immediate)` does (routers told to unroute);
   * false when there is no such circuit, which the API answers 404.
   */
  remove(id: string, immediate: boolean): Promise<boolean>;
}

/** Upstream's link modes (`model/link_model.go` LinkMode.String). */
export type LinkState = 'Pending' | 'Connected' | 'Failed' | 'Duplicate';

/** One router-to-router link as `GET /fabric/v1/links` shows it (`api_impl/link_api_model.go` MapLinkToRestModel). */
export interface LinkSummary {
  id: string;
  protocol: string;
  dialAddress: string;
  sourceRouterId: string;
  destRouterId: string;
  state: LinkState;
  /** Set by an operator (`PATCH /links/{id}`) or a fault; a down link carries no circuit. */
  down: boolean;
  staticCost: number;
  /** Latencies in nanoseconds, as the routers report them. */
  sourceLatency: number;
  destLatency: number;
  cost: number;
  iteration: number;
}

export interface LinksView {
  list(): Promise<readonly LinkSummary[]>;
  get(id: string): Promise<LinkSummary | undefined>;
  /** An operator's static cost or down flag (`ziti fabric update link`); false when the link is unknown. */
  update?(id: string, change: { staticCost?: number; down?: boolean }): Promise<boolean>;
}

/** The two views together, as AppDeps carries them (`deps.network`). */
export interface NetworkViews {
  circuits: CircuitsView;
  links: LinksView;
}

/** A controller without routers' links or circuits yet (and every test that does not build some). */
export const emptyNetwork: NetworkViews = {
  circuits: {
    list: () => Promise.resolve([]),
    get: () => Promise.resolve(undefined),
    remove: () => Promise.resolve(false),
  },
  links: {
    list: () => Promise.resolve([]),
    get: () => Promise.resolve(undefined),
    update: () => Promise.resolve(false),
  },
};
