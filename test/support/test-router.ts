// A router written in TypeScript for the tests: it enrolls through our API as `ziti router enroll` does (erott, two
// CSRs), connects over real TLS with the certificate enrollment issued, sends the hello a v1.1.8 router sends (the
// headers captured from a real one), then RouterLinks and heartbeats, and lets tests handle and send messages.
import { once } from 'node:events';
import { connect, type TLSSocket } from 'node:tls';
import pino from 'pino';
import { Channel, type HeartbeatOptions } from '../../src/fabric/channel/channel.js';
import { sendHello } from '../../src/fabric/channel/hello.js';
import { Header, type Message } from '../../src/fabric/channel/message.js';
import { encodeString } from '../../src/fabric/channel/header-codecs.js';
import { ContentType as CtrlContentType, ControlHeaders } from '../../src/fabric/messages/gen/ctrl_pb.js';
import { createEdgeRouter } from './factories.js';
import type { TlsTestApp } from './tls-client.js';
import { newCsr, newKeyPair } from './test-keys.js';
import type { JsonGeneralName } from '@peculiar/x509';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  ContentType as EdgeTypes,
  EnrollmentCertsResponseSchema,
  EnrollmentExtendRouterRequestSchema,
  EnrollmentExtendRouterVerifyRequestSchema,
  ErrorSchema,
} from '../../src/fabric/messages/gen/edge_ctrl_pb.js';

/** Content types as numbers (a message's content type is any number; lint refuses comparing it with the enum). */
const EdgeContentType: Record<keyof typeof EdgeTypes, number> = EdgeTypes;
import { TestRouterInspect } from './test-router-inspect.js';
import { TestRouterTunnel } from './test-router-tunnel.js';
import { TestRouterEdge, type EdgeListener } from './test-router-edge.js';
import { requestCircuit, type CircuitAnswer } from './test-router-xgress.js';

/** The hello headers `ziti router run` v1.1.8 sent to a probe listener (docs/reference/router-control-plane.md). */
export const V118_HELLO = {
  version: 'v1.1.8|28fb11b5a76f358685317a85d230b60dd08f66b4|2024-07-29 13:47:45|linux|amd64',
  /** ctrl_pb.Listeners{[{address tls:127.0.0.1:10080, protocol tls, groups [default], localBinding lo}]} */
  listeners: Buffer.concat([
    Buffer.from('0a270a13', 'hex'),
    Buffer.from('tls:127.0.0.1:10080'),
    Buffer.from('1203', 'hex'),
    Buffer.from('tls'),
    Buffer.from('2207', 'hex'),
    Buffer.from('default'),
    Buffer.from('2a02', 'hex'),
    Buffer.from('lo'),
  ]),
  /** ctrl_pb.RouterMetadata{capabilities [LinkManagement]} */
  metadata: Buffer.from('0a0101', 'hex'),
};

export interface EnrolledRouter {
  id: string;
  name: string;
  /** Client certificate chain as enrollment returned it (leaf first). */
  certPem: string;
  keyPem: string;
}

/** Creates an edge router through the management API and enrolls it (erott) over real TLS. */
export async function enrollEdgeRouter(
  t: TlsTestApp,
  adminToken: string,
  body: Record<string, unknown> = {},
): Promise<EnrolledRouter> {
  const id = await createEdgeRouter(t, adminToken, body);
  const detail = await t.call({ method: 'GET', url: `/edge/management/v1/edge-routers/${id}`, token: adminToken });
  const { enrollmentToken, name } = (detail.body as { data: { enrollmentToken: string; name: string } }).data;
  const [clientKey, serverKey] = await Promise.all([newKeyPair('ec'), newKeyPair('ec')]);
  const subject = `C=US, O=OpenZiti, CN=${id}`;
  const csrs = {
    certCsr: await newCsr(clientKey, subject),
    serverCertCsr: await newCsr(serverKey, subject, [{ type: 'ip', value: '127.0.0.1' }]),
  };
  const enrolled = await t.https({
    method: 'POST',
    path: `/edge/client/v1/enroll?method=erott&token=${enrollmentToken}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(csrs),
  });
  if (enrolled.status !== 200) throw new Error(`router enrollment failed: ${enrolled.status} ${enrolled.text}`);
  return { id, name, certPem: (enrolled.json as { data: { cert: string } }).data.cert, keyPem: clientKey.keyPem };
}

export interface TestRouterOptions {
  port: number;
  /** The identity it presents (cert and key) and the id its hello names (default: the enrolled router's). */
  router: { id: string; certPem: string; keyPem: string };
  /** The CA bundle it trusts for the server certificate (what enrollment wrote to identity.ca). */
  ca: string;
  /** ALPN it offers; a v1.1.8 router offers `ziti-ctrl`. */
  alpn?: string[];
  /** Replaces or removes (undefined value) hello headers. */
  helloHeaders?: Map<number, Uint8Array | undefined>;
  /**
   * Its edge listener, announced in its ClientHello (default tls://127.0.0.1:3022); null: it never answers the
   * ServerHello.
   */
  edgeListener?: EdgeListener | null;
  /** The router's heartbeats (default: upstream's 10 s, never closing: a router does not close for this). */
  heartbeat?: Partial<HeartbeatOptions>;
  /**
   * For benches of many routers: keep no message (`received` stays empty) and count the full API-session state's
   * sessions rather than keep them (`edge.fullSyncs`), so a thousand routers fit in one process.
   */
  lean?: boolean;
}

export class TestRouter {
  private constructor(
    readonly socket: TLSSocket,
    readonly channel: Channel,
    /** The controller's hello result. */
    readonly result: Message,
    /** Every message the controller sent since the hello, heartbeats included. */
    readonly received: Message[],
    /** Its edge side: the API sessions it was told of, heartbeats, resync requests. */
    readonly edge: TestRouterEdge,
    /** Its answers to inspections and terminator validations. */
    readonly inspect: TestRouterInspect,
    /** Its embedded tunneler (a `binding: tunnel` listener). */
    readonly tunnel: TestRouterTunnel,
  ) {}

  /** Connects, exchanges hellos, sends RouterLinks as a real router does; rejects if the controller refuses. */
  static async connect(options: TestRouterOptions): Promise<TestRouter> {
    const socket = connect({
      host: '127.0.0.1',
      port: options.port,
      servername: 'localhost',
      ca: options.ca,
      cert: options.router.certPem,
      key: options.router.keyPem,
      ALPNProtocols: options.alpn ?? ['ziti-ctrl'],
    });
    socket.on('error', () => undefined);
    await once(socket, 'secureConnect');
    const headers = new Map<number, Uint8Array>([
      [Header.helloVersion, encodeString(V118_HELLO.version)],
      [ControlHeaders.ListenersHeader, V118_HELLO.listeners],
      [ControlHeaders.RouterMetadataHeader, V118_HELLO.metadata],
    ]);
    for (const [key, value] of options.helloHeaders ?? []) {
      if (value === undefined) headers.delete(key);
      else headers.set(key, value);
    }
    const limits = { maxHeaderBytes: 1 << 20, maxBodyBytes: 64 << 20 };
    const { result, reader, following } = await sendHello(
      socket,
      { headers, body: encodeString(options.router.id) },
      5000,
      limits,
    ).catch((error: unknown) => {
      socket.destroy();
      throw error;
    });
    const heartbeat = {
      sendIntervalMs: 10_000,
      checkIntervalMs: 1000,
      closeUnresponsiveMs: 24 * 3600_000,
      ...options.heartbeat,
    };
    const received: Message[] = [];
    const channel = new Channel(socket, reader, {
      label: `test-router ${options.router.id}`,
      logger: pino({ level: 'silent' }),
      heartbeat,
      maxWriteBufferBytes: 64 << 20,
      ...(options.lean ? {} : { onReceive: (message: Message) => received.push(message) }),
    });
    // The edge handlers are in place before the first message is read: the ServerHello may come with the result.
    const edge = new TestRouterEdge(
      channel,
      options.edgeListener === undefined ? { hostname: '127.0.0.1', port: 3022 } : options.edgeListener,
      options.lean ?? false,
    );
    const router = new TestRouter(
      socket,
      channel,
      result,
      received,
      edge,
      new TestRouterInspect(channel),
      new TestRouterTunnel(channel),
    );
    channel.start(following);
    channel.send({ contentType: CtrlContentType.RouterLinksType, headers: new Map(), body: new Uint8Array(0) });
    return router;
  }

  /** Waits until the controller has sent a message that satisfies `test`. */
  async waitFor(test: (message: Message) => boolean, timeoutMs = 10_000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(test);
      if (found) return found;
      if (Date.now() > deadline) throw new Error('the controller did not send the awaited message in time');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /**
   * Renews its certificates as a v1.1.8 router's certificate checker does (`ziti router run --extend`): new CSRs in
   * EnrollmentExtendRouterRequest (verification required), the pair from EnrollmentCertsResponse, then
   * EnrollmentExtendRouterVerifyRequest echoing the client certificate. Returns the new identity and the verify
   * answer's code ('' is success); `verify: false` stops after the certificates arrive (a router that crashed).
   */
  async renew(
    routerId: string,
    options: { verify?: boolean; requireVerification?: boolean; sans?: JsonGeneralName[] } = {},
  ): Promise<{ certPem: string; keyPem: string; serverCertPem: string; verifyCode: string | undefined }> {
    const [clientKey, serverKey] = await Promise.all([newKeyPair('ec'), newKeyPair('ec')]);
    const subject = `C=US, O=OpenZiti, CN=${routerId}`;
    const request = create(EnrollmentExtendRouterRequestSchema, {
      clientCertCsr: await newCsr(clientKey, subject, options.sans),
      serverCertCsr: await newCsr(serverKey, subject, options.sans ?? [{ type: 'ip', value: '127.0.0.1' }]),
      requireVerification: options.requireVerification ?? true,
    });
    const from = this.received.length;
    this.channel.send({
      contentType: EdgeContentType.EnrollmentExtendRouterRequestType,
      headers: new Map(),
      body: toBinary(EnrollmentExtendRouterRequestSchema, request),
    });
    const answer = await this.waitFor(
      (message) =>
        message.contentType === EdgeContentType.EnrollmentCertsResponseType && this.received.indexOf(message) >= from,
    );
    const certs = fromBinary(EnrollmentCertsResponseSchema, answer.body);
    let verifyCode: string | undefined;
    if (options.verify ?? true) {
      const reply = await this.channel.request(
        {
          contentType: EdgeContentType.EnrollmentExtendRouterVerifyRequestType,
          headers: new Map(),
          body: toBinary(
            EnrollmentExtendRouterVerifyRequestSchema,
            create(EnrollmentExtendRouterVerifyRequestSchema, { clientCertPem: certs.clientCertPem }),
          ),
        },
        30_000,
      );
      if (reply.contentType !== EdgeContentType.ErrorType) throw new Error(`verify answered with ${reply.contentType}`);
      verifyCode = fromBinary(ErrorSchema, reply.body).code;
    }
    return { certPem: certs.clientCertPem, keyPem: clientKey.keyPem, serverCertPem: certs.serverCertPem, verifyCode };
  }

  /**
   * What `ziti agent router quiesce|dequiesce|decommission` make a v1.1.8 router send (QuiesceRouterRequest 1039,
   * DequiesceRouterRequest 1040, DecommissionRouterRequest 1043, empty bodies): the Result's outcome and text.
   */
  async drain(
    kind: 'quiesce' | 'dequiesce' | 'decommission',
    timeoutMs = 5000,
  ): Promise<{ success: boolean; message: string }> {
    const contentType = {
      quiesce: CtrlContentType.QuiesceRouterRequestType,
      dequiesce: CtrlContentType.DequiesceRouterRequestType,
      decommission: CtrlContentType.DecommissionRouterRequestType,
    }[kind];
    const reply = await this.channel.request({ contentType, headers: new Map(), body: new Uint8Array(0) }, timeoutMs);
    return {
      success: reply.headers.get(Header.resultSuccess)?.[0] === 1,
      message: new TextDecoder().decode(reply.body),
    };
  }

  /** What a `binding: proxy` listener of a v1.1.8 router sends for a connection it accepted (test-router-xgress.ts). */
  requestCircuit(service: string, options?: Parameters<typeof requestCircuit>[2]): Promise<CircuitAnswer> {
    return requestCircuit(this.channel, service, options);
  }

  close(): Promise<void> {
    this.channel.close('test router closed');
    return this.channel.closed;
  }
}

// The control-plane tests import the poll from here beside the router they poll about.
export { waitUntil } from './wait.js';
