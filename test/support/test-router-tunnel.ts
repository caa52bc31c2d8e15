// The embedded tunneler of the test router, as a v1.1.8 router with a `binding: tunnel` listener speaks to the
// controller (router/xgress_edge_tunnel/fabric.go, servicepoll.go): it authenticates as its own identity, polls its
// service list with the last-update token, creates and removes `tunnel` terminators and asks for circuits to services.
import { create, fromBinary, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import type { Channel } from '../../src/fabric/channel/channel.js';
import type { Message } from '../../src/fabric/channel/message.js';
import { decodeString, decodeU32, encodeBool, encodeString } from '../../src/fabric/channel/header-codecs.js';
import {
  ContentType,
  CreateApiSessionRequestSchema,
  CreateApiSessionResponseSchema,
  CreateCircuitForServiceRequestSchema,
  CreateCircuitForServiceResponseSchema,
  CreateTunnelTerminatorRequestSchema,
  CreateTunnelTerminatorResponseSchema,
  Header,
  ServicesListSchema,
  UpdateTunnelTerminatorRequestSchema,
  type ServicesList,
} from '../../src/fabric/messages/gen/edge_ctrl_pb.js';

/** A refusal: the edge error (20002) the controller answered, with its code. */
export class TunnelRefusal extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** The config types a v1.1.8 router asks for (fabric.go authenticate). */
export const ROUTER_CONFIG_TYPES = [
  'f2dd2df0-9c04-4b84-a91e-71437ac229f1',
  'cea49285-6c07-42cf-9f52-09a9b115c783',
  'g7cIWbcGg',
  'NH5p4FpGR',
  'host.v2',
];

function answer(reply: Message, expected: ContentType): Message {
  if (reply.contentType === Number(ContentType.ErrorType))
    throw new TunnelRefusal(decodeString(reply.body), decodeU32(reply.headers.get(1014)!));
  if (reply.contentType !== Number(expected)) throw new Error(`expected ${expected}, got ${reply.contentType}`);
  return reply;
}

export class TestRouterTunnel {
  /** The ServiceLists the controller sent, newest last. */
  readonly serviceLists: ServicesList[] = [];
  /** The token the last list carried, sent back with the next request (servicesLastUpdateToken). */
  lastUpdateToken: Uint8Array = new Uint8Array(0);

  constructor(readonly channel: Channel) {
    channel.handle(ContentType.ServiceListType, (message) => {
      const list = fromBinary(ServicesListSchema, message.body);
      this.lastUpdateToken = list.lastUpdate;
      this.serviceLists.push(list);
    });
  }

  async authenticate(configTypes = ROUTER_CONFIG_TYPES) {
    const request = create(CreateApiSessionRequestSchema, {
      envInfo: { Os: 'linux', arch: 'amd64', OsRelease: 'test', OsVersion: 'test' },
      sdkInfo: { AppId: 'ziti-router', AppVersion: 'v1.1.8', Type: 'ziti-router:tunnel', Version: 'v1.1.8' },
      configTypes,
    });
    const reply = await this.channel.request(
      {
        contentType: ContentType.CreateApiSessionRequestType,
        headers: new Map(),
        body: toBinary(CreateApiSessionRequestSchema, request),
      },
      5000,
    );
    return fromBinary(CreateApiSessionResponseSchema, answer(reply, ContentType.CreateApiSessionResponseType).body);
  }

  /** Asks for the list with the last token; resolves with a new list, or undefined when none came within `waitMs`. */
  async pollServices(waitMs = 300): Promise<ServicesList | undefined> {
    const before = this.serviceLists.length;
    this.channel.send({
      contentType: ContentType.ListServicesRequestType,
      headers: new Map(),
      body: this.lastUpdateToken,
    });
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline) {
      if (this.serviceLists.length > before) return this.serviceLists.at(-1);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return undefined;
  }

  async createTerminator(init: MessageInitShape<typeof CreateTunnelTerminatorRequestSchema>) {
    const request = create(CreateTunnelTerminatorRequestSchema, init);
    const reply = await this.channel.request(
      {
        contentType: ContentType.CreateTunnelTerminatorRequestType,
        headers: new Map(),
        body: toBinary(CreateTunnelTerminatorRequestSchema, request),
      },
      5000,
    );
    return fromBinary(
      CreateTunnelTerminatorResponseSchema,
      answer(reply, ContentType.CreateTunnelTerminatorResponseType).body,
    );
  }

  async createCircuit(init: MessageInitShape<typeof CreateCircuitForServiceRequestSchema>) {
    const request = create(CreateCircuitForServiceRequestSchema, init);
    const reply = await this.channel.request(
      {
        contentType: ContentType.CreateCircuitForServiceRequestType,
        headers: new Map(),
        body: toBinary(CreateCircuitForServiceRequestSchema, request),
      },
      5000,
    );
    return fromBinary(
      CreateCircuitForServiceResponseSchema,
      answer(reply, ContentType.CreateCircuitForServiceResponseType).body,
    );
  }

  async updateTerminator(init: MessageInitShape<typeof UpdateTunnelTerminatorRequestSchema>): Promise<void> {
    const request = create(UpdateTunnelTerminatorRequestSchema, init);
    const reply = await this.channel.request(
      {
        contentType: ContentType.UpdateTunnelTerminatorRequestType,
        headers: new Map(),
        body: toBinary(UpdateTunnelTerminatorRequestSchema, request),
      },
      5000,
    );
    answer(reply, ContentType.UpdateTunnelTerminatorResponseType);
  }

  async removeTerminator(terminatorId: string): Promise<void> {
    const reply = await this.channel.request(
      {
        contentType: ContentType.RemoveTunnelTerminatorRequestType,
        headers: new Map(),
        body: encodeString(terminatorId),
      },
      5000,
    );
    answer(reply, ContentType.RemoveTunnelTerminatorResponseType);
  }

  /** A health check's outcome (fabric.go sendHealthEvent): a report, nothing is answered. */
  healthEvent(terminatorId: string, checkPassed: boolean): void {
    this.channel.send({
      contentType: ContentType.TunnelHealthEventType,
      headers: new Map([
        [Header.TerminatorId, encodeString(terminatorId)],
        [Header.CheckPassed, encodeBool(checkPassed)],
      ]),
      body: new Uint8Array(0),
    });
  }
}
