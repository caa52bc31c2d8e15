// The router control plane of one process: its own TLS listener (and connections the API port hands over by ALPN
// `ziti-ctrl`), the hello exchange with router authentication, the hello result upstream routers require, the
// channels this process holds, and their presence in the store.
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { Channel } from '../channel/channel.js';
import { receiveHello, writeHelloResult } from '../channel/hello.js';
import { Header } from '../channel/message.js';
import { decodeString, encodeBitmask, encodeString } from '../channel/header-codecs.js';
import { ControllerCapability } from '../messages/headers.js';
import { ControlHeaders, ListenersSchema, type Listener } from '../messages/gen/ctrl_pb.js';
import { fromBinary } from '@bufbuild/protobuf';
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

export const CTRL_ALPN = 'ziti-ctrl';
/** Upstream's RouterConnectChurnLimit: a connected router's second connection is refused for this long. */
const CHURN_LIMIT_MS = 60_000;
/** After the hello. Routers' largest messages are metrics and circuit lists; ours, the full API-session state. */
const CHANNEL_LIMITS = { maxHeaderBytes: 64 * 1024, maxBodyBytes: 4 * 1024 * 1024 };
const MAX_WRITE_BUFFER_BYTES = 64 * 1024 * 1024;
/** Connections still in their hello at once (upstream bounds its accept pool likewise); more are closed at once. */
const MAX_PENDING_HELLOS = 2000;

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
}

export class ControlPlane {
  readonly #options: ControlPlaneOptions;
  readonly #registry: RouterRegistry;
  readonly #presence: RouterPresence;
  readonly #resultHeaders: Map<number, Uint8Array>;
  #server: Server | undefined;
  #connectionCount = 0;
  #pendingHellos = 0;

  constructor(options: ControlPlaneOptions) {
    this.#options = options;
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

  start(): void {
    this.#presence.start();
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
    if (this.#pendingHellos >= MAX_PENDING_HELLOS) {
      socket.destroy();
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
      const now = clock();
      const router = await authenticateRouter(store, pki, routerId, peerCertificates(socket), now);
      await this.#refuseChurn(routerId, now.getTime());
      if (socket.destroyed) throw new RouterRefused('connection closed during authentication');

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
      const linkListeners = parseLinkListeners(hello.headers.get(ControlHeaders.ListenersHeader), (reason) =>
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
      this.#presence.connected(connection, router.fingerprint!);
      logger.info({ routerId, routerName: router.name, peer, version: versionInfo.version }, 'router connected');
      void channel.closed.then(() => {
        this.#registry.remove(connection);
        this.#presence.disconnected(connection);
        logger.info({ routerId, reason: channel.closeReason }, 'router disconnected');
      });
      channel.start(following);
    } catch (error) {
      socket.destroy();
      if (error instanceof Error) logger.warn({ routerId, peer, reason: error.message }, 'router connection refused');
      else throw error;
    }
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

/** The hello's version header; upstream refuses a router without one (handler_ctrl/accept.go). */
function parseVersionInfo(header: Uint8Array | undefined): VersionInfo {
  if (!header) throw new RouterRefused('no version info header');
  const fields = decodeString(header).split('|');
  if (fields.length !== 5)
    throw new RouterRefused(`could not parse version info: expected 5 values, got ${fields.length}`);
  // Five fields, as checked: the defaults are never used.
  const [version = '', revision = '', buildDate = '', os = '', arch = ''] = fields;
  return { version, revision, buildDate, os, arch };
}

/** Header 10; upstream logs an unreadable one and goes on without listeners (handler_ctrl/accept.go). */
function parseLinkListeners(header: Uint8Array | undefined, unreadable: (reason: string) => void): Listener[] {
  if (!header) return [];
  try {
    return fromBinary(ListenersSchema, header).listeners;
  } catch (error) {
    unreadable(error instanceof Error ? error.message : String(error));
    return [];
  }
}
