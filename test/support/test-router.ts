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
import { TestRouterTunnel } from './test-router-tunnel.js';
import { TestRouterEdge, type EdgeListener } from './test-router-edge.js';

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
      onReceive: (message) => received.push(message),
    });
    // The edge handlers are in place before the first message is read: the ServerHello may come with the result.
    const edge = new TestRouterEdge(
      channel,
      options.edgeListener === undefined ? { hostname: '127.0.0.1', port: 3022 } : options.edgeListener,
    );
    const router = new TestRouter(socket, channel, result, received, edge, new TestRouterTunnel(channel));
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

  close(): Promise<void> {
    this.channel.close('test router closed');
    return this.channel.closed;
  }
}

/** Polls `check` until it holds (REST state that follows a connection's events). */
export async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
