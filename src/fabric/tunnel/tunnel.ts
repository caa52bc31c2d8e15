// A router's embedded tunneler (router/xgress_edge_tunnel in v1.1.8) as the controller answers it
// (controller/handler_edge_ctrl create_tunnel_api_session.go, list_tunnel_services.go, create_tunnel_terminator*.go,
// create_tunnel_circuit*.go, update_tunnel_terminator.go, remove_tunnel_terminator.go, tunnel_health_event.go): the
// router acts as its own Router-type identity, with an API session and sessions made as any client's are, and hosts
// services with terminators of binding `tunnel`.
import { create, toBinary } from '@bufbuild/protobuf';
import { deleteTerminators } from '../../store/queries/terminators.js';
import {
  ContentType as EdgeType,
  CreateApiSessionResponseSchema,
  CreateTunnelTerminatorResponseSchema,
  CreateTunnelTerminatorResponseV2Schema,
  type CreateApiSessionRequest,
  type CreateTunnelTerminatorRequest,
  type CreateTunnelTerminatorRequestV2,
  type UpdateTunnelTerminatorRequest,
} from '../messages/gen/edge_ctrl_pb.js';
import type { ControlChannel, FabricLogger, Outgoing } from '../ctrl/router-channel.js';
import type { FabricMetrics } from '../ctrl/fabric-metrics.js';
import type { Strategies } from '../circuits/strategies.js';
import { EdgeErrorCode, EdgeRequestError } from '../edge-requests.js';
import { placeTerminator, type TerminatorPlacement } from '../terminators/create-terminator.js';
import { applyTerminatorUpdate, verifyTerminator } from '../terminators/update-terminator.js';
import { servicePair } from '../../store/queries/service-access.js';
import { apiSessionResponse, recordTunnelInfo, type TunnelDeps } from './tunnel-identity.js';
import { MAX_LAST_UPDATE_TOKEN, readLastUpdate, serviceListFor } from './tunnel-services.js';
import { checkedTunnelSession, requireRouterAccess, storedNow, tunnelCaller, tunnelService } from './tunnel-checks.js';
import type { TunnelCaller } from './tunnel-checks.js';
import { TunnelState } from './tunnel-state.js';
import { TunnelCircuits, type TunnelDials } from './tunnel-circuits.js';

/** The binding of terminators a router's tunneler hosts (common.TunnelBinding). */
export const TUNNEL_BINDING = 'tunnel';
const MAX_COST = 65535;

export interface TunnelOptions {
  deps: TunnelDeps;
  logger: FabricLogger;
  strategies: Strategies;
  circuits: TunnelDials;
  /** The API session lifetime, from which the router's refresh interval is told (edge.api.sessionTimeout). */
  sessionTimeoutMs: number;
  metrics?: FabricMetrics;
}

/** What a TunnelHealthEvent (20412) carries, in headers. */
export interface TunnelHealthEvent {
  terminatorId: string;
  checkPassed: boolean;
}

export class Tunnel {
  /** Per control channel, as upstream binds a TunnelState with each channel's handlers. */
  readonly #states = new WeakMap<ControlChannel, TunnelState>();
  readonly circuits: TunnelCircuits;

  constructor(private readonly options: TunnelOptions) {
    this.circuits = new TunnelCircuits(options, (channel) => this.#state(channel));
  }

  #state(channel: ControlChannel): TunnelState {
    let state = this.#states.get(channel);
    if (!state) this.#states.set(channel, (state = new TunnelState()));
    return state;
  }

  #caller(routerId: string, channel: ControlChannel, configTypes?: readonly string[]) {
    const { deps, logger } = this.options;
    return tunnelCaller(deps, logger, this.#state(channel), routerId, channel, configTypes);
  }

  /** CreateApiSessionRequest (20400 → 20401). */
  async createApiSession(
    routerId: string,
    channel: ControlChannel,
    request: CreateApiSessionRequest,
  ): Promise<Outgoing | void> {
    const caller = await this.#caller(routerId, channel, request.configTypes);
    if (!caller) return;
    await recordTunnelInfo(this.options.deps, caller.identity, request);
    const response = apiSessionResponse(caller.identity, caller.apiSession, this.options.sessionTimeoutMs);
    this.options.logger.info({ routerId, apiSessionId: caller.apiSession.id }, 'tunneler API session answered');
    return {
      contentType: EdgeType.CreateApiSessionResponseType,
      headers: new Map(),
      body: toBinary(CreateApiSessionResponseSchema, response),
    };
  }

  /** ListServicesRequest (20404): a ServiceList (20405) sent, when changed; a token past 50 bytes closes the channel. */
  async listServices(routerId: string, channel: ControlChannel, body: Uint8Array): Promise<void> {
    if (body.length > MAX_LAST_UPDATE_TOKEN) {
      this.options.logger.error({ routerId, length: body.length }, 'list service request too long, closing channel');
      channel.close('list service request too long');
      return;
    }
    const caller = await this.#caller(routerId, channel);
    if (!caller) return;
    const list = await this.options.deps.store.read((db) =>
      serviceListFor(db, caller.identity.id, caller.apiSession.id, readLastUpdate(body)),
    );
    if (list) channel.send(list);
  }

  /** CreateTunnelTerminatorRequest (20406 → 20407). */
  async createTerminator(
    routerId: string,
    channel: ControlChannel,
    request: CreateTunnelTerminatorRequest,
  ): Promise<Outgoing | void> {
    const { deps } = this.options;
    const caller = await this.#caller(routerId, channel);
    if (!caller) return;
    const service = await tunnelService(deps, { name: request.serviceName });
    const checked = await checkedTunnelSession(deps, this.#state(channel), caller, service, request.sessionId, 'Bind');
    await this.#place(caller, { ...request, serviceId: service.id, serviceName: service.name });
    const response = create(CreateTunnelTerminatorResponseSchema, {
      session: { sessionId: checked.session.id, token: checked.token },
      terminatorId: request.address,
      startTime: request.startTime,
      ...(caller.isNewApiSession
        ? { apiSession: apiSessionResponse(caller.identity, caller.apiSession, this.options.sessionTimeoutMs) }
        : {}),
    });
    return {
      contentType: EdgeType.CreateTunnelTerminatorResponseType,
      headers: new Map(),
      body: toBinary(CreateTunnelTerminatorResponseSchema, response),
    };
  }

  /** CreateTunnelTerminatorRequestV2 (20413 → 20414, for routers with `ha.enabled`): no session, the Bind grant. */
  async createTerminatorV2(
    routerId: string,
    channel: ControlChannel,
    request: CreateTunnelTerminatorRequestV2,
  ): Promise<Outgoing | void> {
    const { deps } = this.options;
    const caller = await this.#caller(routerId, channel);
    if (!caller) return;
    const service = await tunnelService(deps, { id: request.serviceId });
    const pair = await deps.store.read((db) => servicePair(db, caller.identity.id, service.id));
    if (!(Number(pair?.bind ?? 0) > 0)) throw new EdgeRequestError('invalid service', EdgeErrorCode.invalidService);
    await requireRouterAccess(deps, routerId, service.id);
    await this.#place(caller, { ...request, serviceId: service.id, serviceName: service.name });
    const response = create(CreateTunnelTerminatorResponseV2Schema, {
      terminatorId: request.address,
      startTime: request.startTime,
    });
    return {
      contentType: EdgeType.CreateTunnelTerminatorResponseV2Type,
      headers: new Map(),
      body: toBinary(CreateTunnelTerminatorResponseV2Schema, response),
    };
  }

  async #place(
    caller: TunnelCaller,
    request: Omit<TerminatorPlacement, 'routerId' | 'hostId' | 'binding'> & { serviceName: string },
  ): Promise<void> {
    const { deps, logger, metrics } = this.options;
    if (request.address === '')
      throw new EdgeRequestError('provided terminator id is blank', EdgeErrorCode.invalidTerminator);
    if (request.cost > MAX_COST) {
      throw new EdgeRequestError(
        `invalid cost ${request.cost}. cost must be between 0 and ${MAX_COST} inclusive`,
        EdgeErrorCode.invalidCost,
      );
    }
    const placement = { ...request, routerId: caller.routerId, hostId: caller.identity.id, binding: TUNNEL_BINDING };
    const placed = await placeTerminator(deps.store, placement, storedNow(deps));
    const fields = {
      routerId: caller.routerId,
      terminatorId: request.address,
      service: request.serviceName,
      serviceId: request.serviceId,
    };
    // Upstream answers a conflicting id as an internal error.
    if (placed.terminator === undefined)
      throw new EdgeRequestError(placed.conflict ?? placed.refusal, EdgeErrorCode.internal);
    if (placed.created) {
      metrics?.terminatorsCreated(1);
      logger.info(fields, 'created tunnel terminator');
    } else logger.info(fields, 'tunnel terminator already exists');
  }

  /** UpdateTunnelTerminatorRequest (20408 → 20409): cost and precedence (host.v1 health checks fail and pass this way). */
  async updateTerminator(routerId: string, request: UpdateTunnelTerminatorRequest): Promise<Outgoing> {
    const { deps, logger } = this.options;
    const serviceId = await deps.store.transaction(async (tx) => {
      const terminator = await verifyTerminator(
        tx,
        routerId,
        request.terminatorId,
        TUNNEL_BINDING,
        'tunnel.update.terminator',
      );
      await applyTerminatorUpdate(tx, terminator, request, storedNow(deps));
      return terminator.service_id;
    });
    logger.info(
      {
        routerId,
        terminatorId: request.terminatorId,
        serviceId,
        cost: request.updateCost ? request.cost : undefined,
        precedence: request.updatePrecedence ? request.precedence : undefined,
      },
      'updated tunnel terminator',
    );
    return { contentType: EdgeType.UpdateTunnelTerminatorResponseType, headers: new Map(), body: new Uint8Array(0) };
  }

  /** RemoveTunnelTerminatorRequest (20410 → 20411): the body is the terminator's id. */
  async removeTerminator(routerId: string, terminatorId: string): Promise<Outgoing> {
    const { deps, logger, strategies, metrics } = this.options;
    const removed = await deps.store.transaction(async (tx) => {
      await verifyTerminator(tx, routerId, terminatorId, TUNNEL_BINDING, 'tunnel.remove.terminator');
      return deleteTerminators(tx, [terminatorId], routerId);
    });
    for (const row of removed) strategies.forget(row.id);
    if (removed.length > 0) metrics?.terminatorsRemoved(removed.length);
    logger.info({ routerId, terminatorId }, 'removed tunnel terminator');
    return { contentType: EdgeType.RemoveTunnelTerminatorResponseType, headers: new Map(), body: new Uint8Array(0) };
  }

  /** TunnelHealthEvent (20412): checked as upstream checks it, then logged (upstream only counts it). */
  async health(routerId: string, event: TunnelHealthEvent): Promise<void> {
    const { deps, logger } = this.options;
    const terminator = await deps.store.read((db) =>
      verifyTerminator(db, routerId, event.terminatorId, TUNNEL_BINDING, 'tunnel.health.event'),
    );
    logger.debug(
      { routerId, terminatorId: terminator.id, serviceId: terminator.service_id, checkPassed: event.checkPassed },
      'tunnel terminator health check reported',
    );
  }
}
