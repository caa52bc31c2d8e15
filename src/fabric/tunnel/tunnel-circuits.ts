// The router's tunneler dialing a service (create_tunnel_circuit.go CreateCircuitForServiceRequest 20402 → 20403;
// create_tunnel_circuit_V2.go CreateTunnelCircuitV2Request 20220 → 20221 for `ha.enabled` routers): the tunnel's
// checks, then the same circuit creation, strategies and answers to failure as an SDK's CreateCircuitV2.
import { create, toBinary } from '@bufbuild/protobuf';
import {
  ContentType as EdgeType,
  CreateCircuitForServiceResponseSchema,
  CreateTunnelCircuitV2ResponseSchema,
  type CreateCircuitForServiceRequest,
  type CreateTunnelCircuitV2Request,
} from '../messages/gen/edge_ctrl_pb.js';
import { servicePair } from '../../store/queries/service-access.js';
import type { Circuits } from '../circuits/circuits.js';
import type { ControlChannel, FabricLogger, Outgoing } from '../ctrl/router-channel.js';
import { EdgeErrorCode, EdgeRequestError, type CheckedSession } from '../edge-requests.js';
import { apiSessionResponse, type TunnelDeps } from './tunnel-identity.js';
import { checkedTunnelSession, requireRouterAccess, tunnelCaller, tunnelService } from './tunnel-checks.js';
import type { TunnelState } from './tunnel-state.js';

export type TunnelDials = Pick<Circuits, 'dial' | 'refused'>;

interface TunnelCircuitsOptions {
  deps: TunnelDeps;
  logger: FabricLogger;
  circuits: TunnelDials;
  sessionTimeoutMs: number;
}

const toMap = (peerData: Record<number, Uint8Array>) =>
  new Map(Object.entries(peerData).map(([k, v]) => [Number(k), v]));

export class TunnelCircuits {
  constructor(
    private readonly options: TunnelCircuitsOptions,
    private readonly stateOf: (channel: ControlChannel) => TunnelState,
  ) {}

  /** CreateCircuitForServiceRequest (20402 → 20403, or an edge error). */
  async create(
    routerId: string,
    channel: ControlChannel,
    request: CreateCircuitForServiceRequest,
  ): Promise<Outgoing | void> {
    const { deps, logger, circuits, sessionTimeoutMs } = this.options;
    const started = deps.clock().getTime();
    let checked: (CheckedSession & { token: string }) | undefined;
    try {
      const caller = await tunnelCaller(deps, logger, this.stateOf(channel), routerId, channel);
      if (!caller) return;
      const service = await tunnelService(deps, { name: request.serviceName });
      checked = await checkedTunnelSession(deps, this.stateOf(channel), caller, service, request.sessionId, 'Dial');
      const dial = { terminatorInstanceId: request.terminatorInstanceId, peerData: toMap(request.peerData) };
      const { circuit, peerData } = await circuits.dial(routerId, dial, checked, started);
      const response = create(CreateCircuitForServiceResponseSchema, {
        session: { sessionId: checked.session.id, token: checked.token },
        circuitId: circuit.id,
        address: circuit.ingressId,
        peerData: Object.fromEntries(peerData),
        tags: circuit.tags,
        ...(caller.isNewApiSession
          ? { apiSession: apiSessionResponse(caller.identity, caller.apiSession, sessionTimeoutMs) }
          : {}),
      });
      return {
        contentType: EdgeType.CreateCircuitForServiceResponseType,
        headers: new Map(),
        body: toBinary(CreateCircuitForServiceResponseSchema, response),
      };
    } catch (caught) {
      return circuits.refused(routerId, checked, caught);
    }
  }

  /**
   * CreateTunnelCircuitV2Request (20220 → 20221): no session. Upstream leaves the Dial grant to the router's data
   * model; it is checked here as well, so a router cannot dial what its identity may not.
   */
  async createV2(
    routerId: string,
    channel: ControlChannel,
    request: CreateTunnelCircuitV2Request,
  ): Promise<Outgoing | void> {
    const { deps, logger, circuits } = this.options;
    const started = deps.clock().getTime();
    let checked: CheckedSession | undefined;
    try {
      const caller = await tunnelCaller(deps, logger, this.stateOf(channel), routerId, channel);
      if (!caller) return;
      const service = await tunnelService(deps, { name: request.serviceName });
      await requireRouterAccess(deps, routerId, service.id);
      const pair = await deps.store.read((db) => servicePair(db, caller.identity.id, service.id));
      if (!(Number(pair?.dial ?? 0) > 0)) throw new EdgeRequestError('invalid service', EdgeErrorCode.invalidService);
      const session = {
        id: '',
        type: 'Dial',
        apiSessionId: caller.apiSession.id,
        identityId: caller.identity.id,
        identityName: caller.identity.name,
        serviceId: service.id,
      };
      checked = { session, service };
      const dial = { terminatorInstanceId: request.terminatorInstanceId, peerData: toMap(request.peerData) };
      const { circuit, peerData } = await circuits.dial(routerId, dial, checked, started);
      const response = create(CreateTunnelCircuitV2ResponseSchema, {
        circuitId: circuit.id,
        address: circuit.ingressId,
        peerData: Object.fromEntries(peerData),
        tags: circuit.tags,
      });
      return {
        contentType: EdgeType.CreateTunnelCircuitV2ResponseType,
        headers: new Map(),
        body: toBinary(CreateTunnelCircuitV2ResponseSchema, response),
      };
    } catch (caught) {
      return circuits.refused(routerId, checked, caught);
    }
  }
}
