// The router control plane of one process: its own TLS listener (and connections the API port hands over by ALPN
// `ziti-ctrl`), the hello exchange with router authentication, the hello result upstream routers require, the
// channels this process holds, and their presence in the store.
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { Channel } from '../channel/channel.js';
import { receiveHello, writeHelloResult, type HelloReceived } from '../channel/hello.js';
import { Header } from '../channel/message.js';
import { decodeString, encodeBitmask, encodeString } from '../channel/header-codecs.js';
import { ControllerCapability } from '../messages/headers.js';
import { ControlHeaders } from '../messages/gen/ctrl_pb.js';
import type { Clock } from '../../lib/clock.js';
import type { Pki } from '../../pki/ensure-pki.js';
import type { Settings } from '../../settings/settings.schema.js';
import { heldRouters } from '../../store/queries/router-presence.js';
import type { Store } from '../../store/store.js';
import { formatTimestamp } from '../../lib/clock.js';
import { authenticateRouter, RouterRefused } from './router-auth.js';
import { peerCertificates } from '../../lib/peer-certificates.js';
import {
  RouterRegistry,
  type RouterConnection,
  type RouterConnections,
  type VersionInfo,
} from './router-connections.js';
import { RouterPresence } from './router-presence.js';
import { BurstReport } from '../../lib/burst-report.js';
import { parseLinkListeners, parseVersionInfo } from './hello-headers.js';

export const CTRL_ALPN = 'ziti-ctrl';
/** Upstream's RouterConnectChurnLimit: a connected router's second connection is refused for this long. */
const CHURN_LIMIT_MS = 60_000;
/** After the hello. Routers' largest messages are metrics and circuit lists; ours, the full API-session state. */
const CHANNEL_LIMITS = { maxHeaderBytes: 64 * 1024, maxBodyBytes: 4 * 1024 * 1024 };
const MAX_WRITE_BUFFER_BYTES = 64 * 1024 * 1024;
/** Connections still in their hello at once (upstream bounds its accept pool likewise); more are closed at once. */
const MAX_PENDING_HELLOS = 2000;
/** Those closed are warned about at most this often, with their count (a burst would log one line a socket). */
const HELLO_OVERFLOW_WARNING_MS = 10_000;

export interface ControlPlaneOptions {
  store: Store;
  pki: Pki;
  settings: Settings;
  clock: Clock;
  logger: Logger;
  instanceId: string;
  /** Header 8: routers key their controllers by it; every instance of one cluster is one controller to them. */
  controllerId: string;
  /** Header 4 (`version|revision|buildDate|os|arch`), see system/build-info.ts. */
  versionHeader: string;
  instanceOfflineAfterMs: number;
  /** The instance that ran on this home before this process: it is dead, and its routers are released at start. */
  predecessorId?: string | undefined;
}

export class ControlPlane {
  readonly #options: ControlPlaneOptions;
  readonly #registry: RouterRegistry;
  readonly #presence: RouterPresence;
  readonly #resultHeaders: Map<number, Uint8Array>;
  #server: Server | undefined;
  #connectionCount = 0;
  #pendingHellos = 0;
  readonly #helloOverflow: BurstReport;
  /** Per router, the end of its hellos in progress (#oneAtATime). */
  readonly #helloTurns = new Map<string, Promise<void>>();

  constructor(options: ControlPlaneOptions) {
    this.#options = options;
    this.#helloOverflow = new BurstReport(
      HELLO_OVERFLOW_WARNING_MS,
      () => options.clock().getTime(),
      (closed) =>
        options.logger.warn(
          { closed, pendingHellos: MAX_PENDING_HELLOS },
          'router connections closed unanswered: too many hellos pending',
        ),
    );
    const onError = (error: unknown) => options.logger.error({ err: error }, 'router control plane');
    this.#registry = new RouterRegistry(onError);
    this.#presence = new RouterPresence({
      store: options.store,
      clock: options.clock,
      instanceId: options.instanceId,
      registry: this.#registry,
      instanceOfflineAfterMs: options.instanceOfflineAfterMs,
      onError,
    });
    this.#resultHeaders = new Map<number, Uint8Array>([
      [Header.id, encodeString(options.controllerId)],
      [Header.helloVersion, encodeString(options.versionHeader)],
      // Without bits 1 and 3 a v1.1.8 router falls back to the V1 terminator and circuit requests.
      [
        ControlHeaders.CapabilitiesHeader,
        encodeBitmask([
          ControllerCapability.CreateTerminatorV2,
          ControllerCapability.SingleRouterLinkSource,
          ControllerCapability.CreateCircuitV2,
        ]),
      ],
    ]);
  }

  /** The router channels this process holds. */
  get routers(): RouterConnections {
    return this.#registry;
  }

  /** Resolves when every connect and disconnect so far is in the store (tests, shutdown). */
  presenceFlushed(): Promise<void> {
    return this.#presence.flushed();
  }

  /** Before the first router is accepted: the routers a killed predecessor held go offline, free to connect here. */
  async start(): Promise<void> {
    const { predecessorId, logger } = this.#options;
    if (predecessorId !== undefined) {
      const released = await this.#presence.releaseInstance(predecessorId);
      if (released > 0)
        logger.info({ predecessorId, routers: released }, 'released the routers of the instance this one replaces');
    }
    this.#presence.start();
  }

  /** A router held here renewed its certificate (certificate-renewal.ts): its channel is not dropped as re-enrolled. */
  certificateRenewed(routerId: string, fingerprint: string): void {
    this.#presence.renewed(routerId, fingerprint);
  }

  /** Drops channels of routers deleted, disabled, re-enrolled or taken by another instance (every second by itself). */
  watchRouters(): Promise<void> {
    return this.#presence.watch();
  }

  /** Marks offline the routers held by instances that stopped beating (runs every 10 s by itself). */
  sweepDeadInstances(): Promise<void> {
    return this.#presence.sweep();
  }

  /** Listens on the control port: TLS with client certificates requested, verified in code (router-auth.ts). */
  async listen(host: string, port: number): Promise<{ host: string; port: number }> {
    const { pki } = this.#options;
    const server = createServer({
      key: pki.serverKeyPem,
      cert: pki.serverChainPem,
      requestCert: true,
      rejectUnauthorized: false,
      minVersion: 'TLSv1.2',
      ALPNProtocols: [CTRL_ALPN],
      handshakeTimeout: this.#options.settings.ctrlConnectTimeoutMs,
    });
    server.on('secureConnection', (socket) => this.accept(socket));
    server.on('tlsClientError', (_error, socket) => socket.destroy());
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string')
      throw new Error('the control plane listener has no TCP address');
    return { host: address.address, port: address.port };
  }

  /** Takes a TLS connection whose handshake is done (from our listener, or the API port by ALPN). */
  accept(socket: TLSSocket): void {
    // Small request/answer messages: Nagle's algorithm held an answer written while an earlier one was unacknowledged
    // until the router's delayed ACK (~40 ms per proxy_udp dial in the traffic interop run: 48 ms, 13 ms without).
    // Go's connections, upstream's controller's among them, set TCP_NODELAY by default.
    socket.setNoDelay(true);
    if (this.#pendingHellos >= MAX_PENDING_HELLOS) {
      socket.destroy();
      this.#helloOverflow.hit();
      return;
    }
    this.#pendingHellos++;
    void this.#accept(socket).finally(() => this.#pendingHellos--);
  }

  async #accept(socket: TLSSocket): Promise<void> {
    const { logger, clock, pki, store } = this.#options;
    const peer = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    socket.on('error', () => undefined);
    let routerId: string | undefined;
    try {
      const { hello, reader, following } = await receiveHello(socket, this.#options.settings.ctrlConnectTimeoutMs);
      routerId = decodeString(hello.body);
      if (hello.headers.has(Header.type)) throw new RouterRefused('a controller peer (HA) is not supported');
      const versionInfo = parseVersionInfo(hello.headers.get(Header.helloVersion));
      // One hello of a router at a time, from the store's answers to its registration: checked together, 200
      // simultaneous hellos of one router would all pass the churn check before any registered.
      const { router, connection } = await this.#oneAtATime(routerId, async (id) => {
        // A router retries its hello after 5 s: an attempt it gave up while waiting for its turn is not worked on.
        if (socket.destroyed) throw new RouterRefused('connection closed before authentication');
        const now = clock();
        const router = await authenticateRouter(store, pki, id, peerCertificates(socket), now);
        await this.#refuseChurn(id, now.getTime());
        if (socket.destroyed) throw new RouterRefused('connection closed during authentication');
        return { router, connection: this.#register(id, router, socket, reader, hello.headers, versionInfo) };
      });
      logger.info({ routerId, routerName: router.name, peer, version: versionInfo.version }, 'router connected');
      void connection.channel.closed.then(() => {
        // A connection replaced by a newer one of the same router leaves the router online.
        if (this.#registry.remove(connection)) this.#presence.disconnected(connection);
        logger.info({ routerId, reason: connection.channel.closeReason }, 'router disconnected');
      });
      connection.channel.start(following);
    } catch (error) {
      socket.destroy();
      if (error instanceof Error) logger.warn({ routerId, peer, reason: error.message }, 'router connection refused');
      else throw error;
    }
  }

  /** Runs `work` for a router after every earlier call for the same router has settled. */
  async #oneAtATime<T>(routerId: string, work: (routerId: string) => Promise<T>): Promise<T> {
    const previous = this.#helloTurns.get(routerId) ?? Promise.resolve();
    const turn = previous.then(() => work(routerId));
    // The next hello waits for this one to settle, whatever its outcome (its refusal is logged by its caller).
    const settled = turn.then(
      () => undefined,
      () => undefined,
    );
    this.#helloTurns.set(routerId, settled);
    void settled.then(() => {
      if (this.#helloTurns.get(routerId) === settled) this.#helloTurns.delete(routerId);
    });
    return turn;
  }

  /** Answers the hello and holds the channel: from here on the router is this process's. */
  #register(
    routerId: string,
    router: { isEdge: boolean; fingerprint: string | null },
    socket: TLSSocket,
    reader: HelloReceived['reader'],
    headers: ReadonlyMap<number, Uint8Array>,
    versionInfo: VersionInfo,
  ): RouterConnection {
    const { logger, clock } = this.#options;
    writeHelloResult(
      socket,
      new Map([
        ...this.#resultHeaders,
        [Header.connectionId, encodeString(`${this.#options.instanceId}.${++this.#connectionCount}`)],
      ]),
    );
    reader.setLimits(CHANNEL_LIMITS);
    const { ctrlHeartbeatIntervalMs, ctrlCloseUnresponsiveMs } = this.#options.settings;
    const channel = new Channel(socket, reader, {
      label: routerId,
      logger,
      heartbeat: {
        sendIntervalMs: ctrlHeartbeatIntervalMs,
        checkIntervalMs: Math.min(1000, ctrlHeartbeatIntervalMs),
        closeUnresponsiveMs: ctrlCloseUnresponsiveMs,
      },
      maxWriteBufferBytes: MAX_WRITE_BUFFER_BYTES,
    });
    const linkListeners = parseLinkListeners(headers.get(ControlHeaders.ListenersHeader), (reason) =>
      logger.warn({ routerId, reason }, 'router link listeners unreadable'),
    );
    const connection: RouterConnection = {
      routerId,
      isEdge: router.isEdge,
      channel,
      connectedAt: clock().getTime(),
      versionInfo,
      linkListeners,
    };
    this.#registry.add(connection);
    // authenticateRouter refuses a router without a fingerprint.
    this.#presence.connected(connection, router.fingerprint ?? '');
    return connection;
  }

  /**
   * Upstream refuses a router's new connection while its current one is younger than the churn limit, and replaces
   * an older one. Across instances the same holds by the presence row of a live instance.
   */
  async #refuseChurn(routerId: string, now: number): Promise<void> {
    const local = this.#registry.get(routerId);
    if (local) {
      if (now - local.connectedAt < CHURN_LIMIT_MS) throw new RouterRefused('router already connected');
      local.channel.close('replaced by a new connection of the same router');
      return;
    }
    const { store, instanceId, instanceOfflineAfterMs } = this.#options;
    const since = formatTimestamp(new Date(now - instanceOfflineAfterMs));
    const held = (await store.read((db) => heldRouters(db, [routerId], since))).get(routerId);
    if (held && held.instanceId !== instanceId && now - Date.parse(held.connectedAt) < CHURN_LIMIT_MS)
      throw new RouterRefused(`router already connected to controller instance ${held.instanceId}`);
  }

  /** Stops listening, closes every channel and marks this instance's routers offline. */
  async close(): Promise<void> {
    const server = this.#server;
    // The server's close waits for its connections to end, so the channels are closed after it stops accepting.
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    for (const connection of [...this.#registry.all()]) connection.channel.close('controller stopping');
    await closed;
    await this.#presence.stop();
  }
}
