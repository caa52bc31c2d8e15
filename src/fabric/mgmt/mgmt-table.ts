// Every request the v1.1.8 CLI sends on the management channel, one line each (upstream handler_mgmt/bind.go): its
// content type, how its body is decoded, who handles it and how a failure is answered. The wrapper that serves a line
// is mgmt-messages.ts; a content type listed twice fails at start, one not listed is answered with a failed Result.
import { create, fromBinary, toBinary, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import {
  ContentType as MgmtType,
  InspectRequestSchema,
  InspectResponseSchema,
  RouterLinkDetailsSchema,
  RouterSdkTerminatorsDetailsSchema,
  StreamTracesRequestSchema,
  TerminatorDetailSchema,
  ValidateRouterLinksRequestSchema,
  ValidateRouterLinksResponseSchema,
  ValidateRouterSdkTerminatorsRequestSchema,
  ValidateRouterSdkTerminatorsResponseSchema,
  ValidateTerminatorsRequestSchema,
  ValidateTerminatorsResponseSchema,
} from '../messages/gen/mgmt_pb.js';
import { resultMessage, type Outgoing } from '../ctrl/router-channel.js';
import { mgmtLine, MgmtRequestError, type MgmtChannel, type MgmtMessageLine } from './mgmt-messages.js';
import { readStreamEventsRequest, type EventStreams } from './stream-events.js';
import type { Inspections } from './inspections.js';
import { validateTerminators, type TerminatorValidationDeps } from './validate-terminators.js';
import { validateRouterLinks, validateRouterSdkTerminators, type RouterValidationDeps } from './validate-routers.js';

/** The parts that handle management requests. */
export interface MgmtHandlers {
  /** Absent: this process has no events to stream (refused with a failed Result). */
  events: EventStreams | undefined;
  inspections: Pick<Inspections, 'inspect'>;
  terminators: TerminatorValidationDeps;
  routers: RouterValidationDeps;
  /** The controller's id, naming it in failure messages as upstream's GetAppId() does. */
  appId: string;
}

/** A protobuf message as an outgoing frame of its content type. */
function typed<S extends DescMessage>(contentType: number, schema: S, init: MessageInitShape<S>): Outgoing {
  return { contentType, headers: new Map(), body: toBinary(schema, create(schema, init)) };
}

/** A validation's detail, sent as it is known (the CLI counts them down). */
function sender<S extends DescMessage>(channel: MgmtChannel, contentType: number, schema: S) {
  return (detail: MessageInitShape<S>) => {
    if (!channel.isClosed) channel.send(typed(contentType, schema, detail));
  };
}

export function mgmtMessages(h: MgmtHandlers): MgmtMessageLine[] {
  const unmarshalFailed = (reason: string) => `${h.appId}: failed to unmarshall request: ${reason}`;
  return [
    // Streams (stream_events.go, stream_traces.go)
    mgmtLine({
      contentType: MgmtType.StreamEventsRequestType,
      name: 'StreamEventsRequest',
      decode: (message) => readStreamEventsRequest(message.body),
      handle: ({ channel, request }) => {
        if (!h.events) throw new MgmtRequestError('events are not available on this controller');
        return h.events.start(channel, request);
      },
      refuse: (reason) => resultMessage(false, reason),
    }),
    mgmtLine({
      // Accepted without an answer, as upstream; no trace events are recorded here, so none follow.
      contentType: MgmtType.StreamTracesRequestType,
      name: 'StreamTracesRequest',
      decode: (message) => fromBinary(StreamTracesRequestSchema, message.body),
      handle: () => undefined,
      refuse: (reason) => resultMessage(false, reason),
    }),

    // Inspections (inspect.go)
    mgmtLine({
      contentType: MgmtType.InspectRequestType,
      name: 'InspectRequest',
      decode: (message) => fromBinary(InspectRequestSchema, message.body),
      handle: async ({ request }) => {
        const result = await h.inspections.inspect(request.appRegex, request.requestedValues);
        return typed(MgmtType.InspectResponseType, InspectResponseSchema, {
          success: result.success,
          errors: result.errors,
          values: result.values,
        });
      },
      refuse: (reason) =>
        typed(MgmtType.InspectResponseType, InspectResponseSchema, {
          success: false,
          errors: [`${h.appId}: ${reason}`],
        }),
    }),

    // Validations (validate_terminators.go, validate_router_links.go, validate_router_sdk_terminators.go)
    mgmtLine({
      contentType: MgmtType.ValidateTerminatorsRequestType,
      name: 'ValidateTerminatorsRequest',
      decode: (message) => fromBinary(ValidateTerminatorsRequestSchema, message.body),
      handle: async ({ channel, request }) => {
        const report = sender(channel, MgmtType.ValidateTerminatorResultType, TerminatorDetailSchema);
        const { count, run } = await validateTerminators(h.terminators, request.filter, request.fixInvalid, report);
        const reply = typed(MgmtType.ValidateTerminatorResponseType, ValidateTerminatorsResponseSchema, {
          success: true,
          terminatorCount: BigInt(count),
        });
        return { reply, after: run };
      },
      refuse: (reason) =>
        typed(MgmtType.ValidateTerminatorResponseType, ValidateTerminatorsResponseSchema, {
          success: false,
          message: unmarshalFailed(reason),
        }),
    }),
    mgmtLine({
      contentType: MgmtType.ValidateRouterLinksRequestType,
      name: 'ValidateRouterLinksRequest',
      decode: (message) => fromBinary(ValidateRouterLinksRequestSchema, message.body),
      handle: async ({ channel, request }) => {
        const report = sender(channel, MgmtType.ValidateRouterLinksResultType, RouterLinkDetailsSchema);
        const { count, run } = await validateRouterLinks(h.routers, request.filter, report);
        const reply = typed(MgmtType.ValidateRouterLinksResponseType, ValidateRouterLinksResponseSchema, {
          success: true,
          routerCount: BigInt(count),
        });
        return { reply, after: run };
      },
      refuse: (reason) =>
        typed(MgmtType.ValidateRouterLinksResponseType, ValidateRouterLinksResponseSchema, {
          success: false,
          message: unmarshalFailed(reason),
        }),
    }),
    mgmtLine({
      contentType: MgmtType.ValidateRouterSdkTerminatorsRequestType,
      name: 'ValidateRouterSdkTerminatorsRequest',
      decode: (message) => fromBinary(ValidateRouterSdkTerminatorsRequestSchema, message.body),
      handle: async ({ channel, request }) => {
        const report = sender(
          channel,
          MgmtType.ValidateRouterSdkTerminatorsResultType,
          RouterSdkTerminatorsDetailsSchema,
        );
        const { count, run } = await validateRouterSdkTerminators(h.routers, request.filter, report);
        const reply = typed(
          MgmtType.ValidateRouterSdkTerminatorsResponseType,
          ValidateRouterSdkTerminatorsResponseSchema,
          {
            success: true,
            routerCount: BigInt(count),
          },
        );
        return { reply, after: run };
      },
      refuse: (reason) =>
        typed(MgmtType.ValidateRouterSdkTerminatorsResponseType, ValidateRouterSdkTerminatorsResponseSchema, {
          success: false,
          message: unmarshalFailed(reason),
        }),
    }),
  ];
}
