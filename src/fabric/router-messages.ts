// Every message a router sends the controller, one line each (upstream v1.1.8 binds them in handler_ctrl/bind.go and
// handler_edge_ctrl): its content type, how its body is decoded, who handles it and how a refusal or failure is
// answered ('result': a channel Result; 'edge': an edge error 20002; 'none': a report no answer is expected to).
// The wrapper that serves a line is ctrl/router-messages.ts; a content type listed twice fails at start, and one
// not listed is answered as unsupported. Adding a message: a line here, its handler in the part that owns it.
import { fromBinary } from '@bufbuild/protobuf';
import {
  CircuitConfirmationSchema,
  ContentType as CtrlType,
  FaultSchema,
  FaultSubject,
  RemoveTerminatorsRequestSchema,
  RouterLinksSchema,
  ValidateTerminatorsV2ResponseSchema,
  VerifyRouterSchema,
} from './messages/gen/ctrl_pb.js';
import {
  ContentType as EdgeType,
  CreateApiSessionRequestSchema,
  CreateCircuitForServiceRequestSchema,
  CreateTerminatorV2RequestSchema,
  EnrollmentExtendRouterRequestSchema,
  EnrollmentExtendRouterVerifyRequestSchema,
  CreateTunnelCircuitV2RequestSchema,
  CreateTunnelTerminatorRequestSchema,
  CreateTunnelTerminatorRequestV2Schema,
  HealthEventRequestSchema,
  Header as EdgeHeader,
  UpdateTerminatorRequestSchema,
  UpdateTunnelTerminatorRequestSchema,
} from './messages/gen/edge_ctrl_pb.js';
import { decodeBool, decodeString } from './channel/header-codecs.js';
import { ControlContentType } from './messages/headers.js';
import { MetricsMessageSchema, type MetricsMessage } from './messages/gen/metrics_pb.js';
import { decodeCircuitRequest, decodeCreateCircuitRequest, decodeRouteResult } from './circuits/circuit-messages.js';
import { readHeartbeat, readResyncReason, readValidateSessions } from './edge-sync/edge-messages.js';
import { linkLatencies } from './links/link-latency.js';
import { verifyRouter, type FingerprintOf } from './links/verify-router.js';
import { line, type RouterMessageLine } from './ctrl/router-messages.js';
import { resultMessage } from './ctrl/router-channel.js';
import { RouterRequestError } from './ctrl/router-request-error.js';
import type { Circuits } from './circuits/circuits.js';
import type { Terminators } from './terminators/terminators.js';
import type { Links } from './links/links.js';
import type { EdgeSync } from './edge-sync/edge-sync.js';
import type { CertificateRenewal } from './ctrl/certificate-renewal.js';
import type { RouterDrain } from './ctrl/router-drain.js';
import type { Tunnel } from './tunnel/tunnel.js';
import type { TunnelCircuits } from './tunnel/tunnel-circuits.js';

/** The parts of the fabric that handle router messages. */
export interface MessageHandlers {
  circuits: Pick<Circuits, 'create' | 'request' | 'fault' | 'confirm' | 'lateRouteResult'>;
  terminators: Pick<Terminators, 'create' | 'update' | 'remove' | 'health' | 'validated'>;
  links: Pick<Links, 'fault' | 'routerLinks' | 'metrics'>;
  edgeSync: Pick<EdgeSync, 'heartbeat' | 'resync' | 'validateSessions'>;
  /** A router's whole Metrics message, for operators' events and Prometheus (src/events/). */
  routerMetrics(routerId: string, metrics: MetricsMessage): void;
  renewal: Pick<CertificateRenewal, 'extend' | 'verify'>;
  drain: Pick<RouterDrain, 'quiesce' | 'dequiesce' | 'decommission'>;
  tunnel: Pick<
    Tunnel,
    | 'createApiSession'
    | 'listServices'
    | 'createTerminator'
    | 'createTerminatorV2'
    | 'updateTerminator'
    | 'removeTerminator'
    | 'health'
  >;
  tunnelCircuits: Pick<TunnelCircuits, 'create' | 'createV2'>;
  /** A router's enrolled fingerprint, for VerifyRouter. */
  fingerprintOf: FingerprintOf;
}

const textHeader = (value: Uint8Array | undefined) => (value ? decodeString(value) : '');

const isLinkFault = (subject: FaultSubject) =>
  subject === FaultSubject.LinkFault || subject === FaultSubject.LinkDuplicate;

export function routerMessages(h: MessageHandlers): RouterMessageLine[] {
  return [
    // Circuits (handler_ctrl circuit_request.go, fault.go, circuit_confirmation.go, route_result.go; handler_edge_ctrl
    // create_circuit_v2.go)
    line({
      contentType: EdgeType.CreateCircuitV2RequestType,
      name: 'CreateCircuitV2Request',
      decode: decodeCreateCircuitRequest,
      handle: ({ routerId, request }) => h.circuits.create(routerId, request),
      errors: 'edge',
    }),
    line({
      contentType: CtrlType.CircuitRequestType,
      name: 'CircuitRequest',
      decode: decodeCircuitRequest,
      handle: ({ routerId, request }) => h.circuits.request(routerId, request),
      errors: 'circuit',
    }),
    line({
      contentType: CtrlType.FaultType,
      name: 'Fault',
      decode: (message) => fromBinary(FaultSchema, message.body),
      handle: ({ routerId, channel, request }) =>
        isLinkFault(request.subject) ? h.links.fault(routerId, request) : h.circuits.fault(routerId, channel, request),
      errors: 'none',
    }),
    line({
      contentType: CtrlType.CircuitConfirmationType,
      name: 'CircuitConfirmation',
      decode: (message) => fromBinary(CircuitConfirmationSchema, message.body),
      handle: ({ routerId, channel, request }) => h.circuits.confirm(routerId, channel, request),
      errors: 'none',
    }),
    line({
      contentType: ControlContentType.routeResult,
      name: 'RouteResult',
      decode: (message) => {
        const result = decodeRouteResult(message);
        if (!result) throw new Error('missing attempt header');
        return result;
      },
      handle: ({ routerId, channel, request }) => h.circuits.lateRouteResult(routerId, channel, request),
      errors: 'none',
    }),

    // Terminators (handler_edge_ctrl create_terminator_v2.go, update_terminator.go, health_event.go;
    // handler_ctrl remove_terminators.go, validate_terminators.go)
    line({
      contentType: EdgeType.CreateTerminatorV2RequestType,
      name: 'CreateTerminatorV2Request',
      decode: (message) => fromBinary(CreateTerminatorV2RequestSchema, message.body),
      handle: ({ routerId, channel, request }) => h.terminators.create(routerId, channel, request),
      errors: 'edge',
    }),
    line({
      contentType: EdgeType.UpdateTerminatorRequestType,
      name: 'UpdateTerminatorRequest',
      decode: (message) => fromBinary(UpdateTerminatorRequestSchema, message.body),
      handle: ({ routerId, request }) => h.terminators.update(routerId, request),
      errors: 'edge',
    }),
    line({
      contentType: CtrlType.RemoveTerminatorsRequestType,
      name: 'RemoveTerminatorsRequest',
      decode: (message) => fromBinary(RemoveTerminatorsRequestSchema, message.body),
      handle: ({ routerId, request }) => h.terminators.remove(routerId, request),
      errors: 'result',
    }),
    line({
      contentType: EdgeType.HealthEventType,
      name: 'HealthEvent',
      decode: (message) => fromBinary(HealthEventRequestSchema, message.body),
      handle: ({ routerId, request }) => h.terminators.health(routerId, request),
      errors: 'none',
    }),
    line({
      contentType: CtrlType.ValidateTerminatorsV2ResponseType,
      name: 'ValidateTerminatorsV2Response',
      decode: (message) => fromBinary(ValidateTerminatorsV2ResponseSchema, message.body),
      handle: ({ routerId, request }) => h.terminators.validated(routerId, request),
      errors: 'none',
    }),

    // Links (handler_ctrl router_link.go, metrics.go, verify_router.go)
    line({
      contentType: CtrlType.RouterLinksType,
      name: 'RouterLinks',
      decode: (message) => fromBinary(RouterLinksSchema, message.body).links,
      handle: ({ routerId, channel, request }) => h.links.routerLinks(routerId, channel, request),
      errors: 'none',
    }),
    line({
      contentType: CtrlType.MetricsType,
      name: 'Metrics',
      decode: (message) => fromBinary(MetricsMessageSchema, message.body),
      handle: ({ routerId, request }) => {
        h.links.metrics(routerId, linkLatencies(request));
        h.routerMetrics(routerId, request);
      },
      errors: 'none',
    }),
    line({
      contentType: CtrlType.VerifyRouterType,
      name: 'VerifyRouter',
      decode: (message) => fromBinary(VerifyRouterSchema, message.body),
      handle: async ({ request }) => {
        const failure = await verifyRouter(h.fingerprintOf, request.routerId, request.fingerprints);
        if (failure) throw new RouterRequestError(failure);
        return resultMessage(true, 'router verified');
      },
      errors: 'result',
    }),

    // Drain and decommission (handler_ctrl quiesce_router.go, dequiesce_router.go, decommission.go)
    line({
      contentType: CtrlType.QuiesceRouterRequestType,
      name: 'QuiesceRouterRequest',
      decode: () => undefined,
      handle: ({ routerId }) => h.drain.quiesce(routerId),
      errors: 'result',
    }),
    line({
      contentType: CtrlType.DequiesceRouterRequestType,
      name: 'DequiesceRouterRequest',
      decode: () => undefined,
      handle: ({ routerId }) => h.drain.dequiesce(routerId),
      errors: 'result',
    }),
    line({
      contentType: CtrlType.DecommissionRouterRequestType,
      name: 'DecommissionRouterRequest',
      decode: () => undefined,
      // No answer on success: deleting the router closes its channel.
      handle: ({ routerId }) => h.drain.decommission(routerId),
      errors: 'result',
    }),

    // Certificate renewal (handler_edge_ctrl extend_enrollment.go, extend_enrollment_verify.go)
    line({
      contentType: EdgeType.EnrollmentExtendRouterRequestType,
      name: 'EnrollmentExtendRouterRequest',
      decode: (message) => fromBinary(EnrollmentExtendRouterRequestSchema, message.body),
      handle: ({ routerId, channel, request }) => h.renewal.extend(routerId, channel, request),
      // Sent without waiting for a reply: the router would drop one, and waits for EnrollmentCertsResponse by type.
      errors: 'none',
    }),
    line({
      contentType: EdgeType.EnrollmentExtendRouterVerifyRequestType,
      name: 'EnrollmentExtendRouterVerifyRequest',
      decode: (message) => fromBinary(EnrollmentExtendRouterVerifyRequestSchema, message.body),
      handle: ({ routerId, request }) => h.renewal.verify(routerId, request),
      errors: 'edge-pb',
    }),

    // The router's embedded tunneler (handler_edge_ctrl create_tunnel_api_session.go, list_tunnel_services.go,
    // create_tunnel_terminator*.go, create_tunnel_circuit*.go, update_tunnel_terminator.go,
    // remove_tunnel_terminator.go, tunnel_health_event.go)
    line({
      contentType: EdgeType.CreateApiSessionRequestType,
      name: 'CreateApiSessionRequest',
      decode: (message) => fromBinary(CreateApiSessionRequestSchema, message.body),
      handle: ({ routerId, channel, request }) => h.tunnel.createApiSession(routerId, channel, request),
      errors: 'edge',
    }),
    line({
      contentType: EdgeType.ListServicesRequestType,
      name: 'ListServicesRequest',
      decode: (message) => message.body,
      handle: ({ routerId, channel, request }) => h.tunnel.listServices(routerId, channel, request),
      errors: 'none',
    }),
    line({
      contentType: EdgeType.CreateTunnelTerminatorRequestType,
      name: 'CreateTunnelTerminatorRequest',
      decode: (message) => fromBinary(CreateTunnelTerminatorRequestSchema, message.body),
      handle: ({ routerId, channel, request }) => h.tunnel.createTerminator(routerId, channel, request),
      errors: 'edge',
    }),
    line({
      contentType: EdgeType.CreateTunnelTerminatorRequestV2Type,
      name: 'CreateTunnelTerminatorRequestV2',
      decode: (message) => fromBinary(CreateTunnelTerminatorRequestV2Schema, message.body),
      handle: ({ routerId, channel, request }) => h.tunnel.createTerminatorV2(routerId, channel, request),
      errors: 'edge',
    }),
    line({
      contentType: EdgeType.CreateCircuitForServiceRequestType,
      name: 'CreateCircuitForServiceRequest',
      decode: (message) => fromBinary(CreateCircuitForServiceRequestSchema, message.body),
      handle: ({ routerId, channel, request }) => h.tunnelCircuits.create(routerId, channel, request),
      errors: 'edge',
    }),
    line({
      contentType: EdgeType.CreateTunnelCircuitV2RequestType,
      name: 'CreateTunnelCircuitV2Request',
      decode: (message) => fromBinary(CreateTunnelCircuitV2RequestSchema, message.body),
      handle: ({ routerId, channel, request }) => h.tunnelCircuits.createV2(routerId, channel, request),
      errors: 'edge',
    }),
    line({
      contentType: EdgeType.UpdateTunnelTerminatorRequestType,
      name: 'UpdateTunnelTerminatorRequest',
      decode: (message) => fromBinary(UpdateTunnelTerminatorRequestSchema, message.body),
      handle: ({ routerId, request }) => h.tunnel.updateTerminator(routerId, request),
      errors: 'edge',
    }),
    line({
      contentType: EdgeType.RemoveTunnelTerminatorRequestType,
      name: 'RemoveTunnelTerminatorRequest',
      decode: (message) => decodeString(message.body),
      handle: ({ routerId, request }) => h.tunnel.removeTerminator(routerId, request),
      errors: 'edge',
    }),
    line({
      contentType: EdgeType.TunnelHealthEventType,
      name: 'TunnelHealthEvent',
      decode: (message) => {
        const passed = message.headers.get(EdgeHeader.CheckPassed);
        return {
          terminatorId: textHeader(message.headers.get(EdgeHeader.TerminatorId)),
          checkPassed: passed !== undefined && decodeBool(passed),
        };
      },
      handle: ({ routerId, request }) => h.tunnel.health(routerId, request),
      errors: 'none',
    }),

    // Edge API sessions (handler_edge_ctrl api_session_heartbeat.go, request_client_resync.go, validate_sessions.go)
    line({
      contentType: EdgeType.ApiSessionHeartbeatType,
      name: 'ApiSessionHeartbeat',
      decode: (message) => readHeartbeat(message.body),
      handle: ({ channel, request }) => h.edgeSync.heartbeat(channel, request),
      errors: 'none',
    }),
    line({
      contentType: EdgeType.RequestClientReSyncType,
      name: 'RequestClientReSync',
      decode: (message) => readResyncReason(message.body),
      handle: ({ channel, request }) => h.edgeSync.resync(channel, request),
      errors: 'none',
    }),
    line({
      contentType: EdgeType.ValidateSessionsRequestType,
      name: 'ValidateSessionsRequest',
      decode: (message) => readValidateSessions(message.body),
      handle: ({ channel, request }) => h.edgeSync.validateSessions(channel, request),
      errors: 'none',
    }),
  ];
}
