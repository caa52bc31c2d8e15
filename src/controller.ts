// Assembles a controller from settings: home folder, PKI, store, default admin, app, metrics; and stops it cleanly.
// main.ts and tests share it.
import { mkdirSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { dirname, join, resolve } from 'node:path';
import pino, { type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { AppDeps } from './app-deps.js';
import { ApiSessions } from './auth/api-sessions.js';
import { ensureDefaultAdmin, type DefaultAdminResult } from './auth/bootstrap-admin.js';
import { ExternalJwtVerifier } from './auth/ext-jwt/ext-jwt-verifier.js';
import { LoginThrottle } from './auth/login-throttle.js';
import { IntegrityChecks } from './integrity/integrity-checks.js';
import { Snapshots } from './integrity/snapshots.js';
import { formatTimestamp, systemClock, type Clock } from './lib/clock.js';
import { defaultIds, newCuid, type IdGenerators } from './lib/ids.js';
import { ensureSharedPki, type SharedPki } from './pki/shared-pki.js';
import type { PkiFiles } from './pki/file-pki.js';
import { PostureMonitor } from './posture/posture-monitor.js';
import type { MfaStateReader } from './posture/posture-inputs.js';
import type { Settings } from './settings/settings.schema.js';
import { openStore } from './store/open-store.js';
import { countApiSessions } from './store/queries/api-sessions.js';
import { queueWrites } from './store/write-queue.js';
import { readBuildInfo, versionHeader } from './system/build-info.js';
import { countTerminators } from './store/queries/terminators.js';
import { CTRL_ALPN } from './fabric/ctrl/control-plane.js';
import { Fabric } from './fabric/fabric.js';
import { Health } from './system/health.js';
import { InstanceHeartbeat, OFFLINE_AFTER_MS } from './system/instance-heartbeat.js';
import { succeedInstance } from './system/instance-succession.js';
import { removeRouterById } from './entities/router/remove-router.js';
import { workerIndex } from './workers.js';
import { Metrics } from './system/metrics.js';
import { listenForMetrics, type MetricsListener } from './system/metrics-listener.js';
import { ControllerEvents } from './events/controller-events.js';
import { MgmtSocket } from './fabric/mgmt/mgmt-socket.js';
import { admitMgmtChannel } from './http/mgmt-admission.js';
import { selectRouters, selectTerminatorIds } from './entities/network/mgmt-selectors.js';

export interface ControllerOptions {
  clock?: Clock;
  ids?: IdGenerators;
  logger?: Logger;
  /** SQLite database file when no database URL is set; defaults to `<home>/ctrl.db`. ':memory:' for fast tests. */
  databaseFile?: string;
  /** Serve HTTPS (true for a listening controller; tests that use inject() may skip TLS). */
  tls?: boolean;
  /** How posture learns MFA state; posture's own seam (no MFA yet) by default. */
  readMfaState?: MfaStateReader;
  /** This process's name in `GET /controllers`; default `controller.name`, else the advertised host. */
  instanceName?: string;
}

export interface Controller {
  app: FastifyInstance;
  deps: AppDeps;
  admin: DefaultAdminResult;
  /** The routers' side: the control plane (main.ts listens on its port), circuits, terminators, links, edge sync. */
  fabric: Fabric;
  /** The metrics listener, when `metrics.address` is set. */
  metricsListener: MetricsListener | undefined;
  /** Operators' events (issue 31): the dispatcher the management channel's streams subscribe to. */
  events: ControllerEvents;
  /**
   * Stops gracefully: no new connections, requests in flight finish (closed after `shutdown.timeout`), a running
   * integrity scan is cancelled, session activity is flushed, the store closed. Repeated calls share one stop.
   */
  close(): Promise<void>;
}

export async function openController(settings: Settings, options: ControllerOptions = {}): Promise<Controller> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? pino({ level: settings.logLevel });
  mkdirSync(settings.home, { recursive: true, mode: 0o700 });
  const databaseFile = options.databaseFile ?? join(settings.home, 'ctrl.db');
  const instanceId = newCuid();
  const opened = await openStore({
    databaseUrl: settings.databaseUrl,
    databaseFile,
    poolSize: settings.databasePoolSize,
    instance: {
      id: instanceId,
      onLockError: (error) =>
        logger.error({ err: error }, 'could not hold the lock that shows this instance alive to the others'),
    },
  });
  const ids = options.ids ?? defaultIds;
  let shared: SharedPki;
  let admin: DefaultAdminResult;
  try {
    const files = pkiFilesOf(settings);
    shared = await ensureSharedPki(opened, {
      home: settings.home,
      advertisedHost: settings.advertisedHost,
      now: clock,
      ...(files ? { files } : {}),
    });
    admin = await ensureDefaultAdmin({
      store: opened,
      clock,
      ids,
      username: settings.adminUsername,
      password: settings.adminPassword,
    });
  } catch (error) {
    await opened.close();
    throw error;
  }
  const { pki, clusterId } = shared;

  // The listener exists once the app is built; until then there is nothing to count.
  const listener: { app?: FastifyInstance; fabric?: Fabric } = {};
  const metrics = settings.metricsAddress
    ? new Metrics({
        openConnections: () =>
          new Promise((resolve) =>
            listener.app ? listener.app.server.getConnections((_error, count) => resolve(count ?? 0)) : resolve(0),
          ),
        apiSessions: () => opened.read(countApiSessions),
        circuits: () => listener.fabric?.circuits.registry.size ?? 0,
        terminators: () => opened.read(countTerminators),
      })
    : undefined;
  const build = readBuildInfo();
  const events = new ControllerEvents({ settings, clock, logger, instanceId, build, registry: metrics?.registry });
  // Every write transaction records its entity changes and emits their events after it commits (issue 31).
  const recorded = events.changeLog.wrap(opened);
  // Background work (activity flushes, scans) uses `store`; requests write through the bounded queue.
  const store = metrics ? metrics.timed(recorded) : recorded;
  const requestStore = settings.commandRateLimiterEnabled
    ? queueWrites(store, settings.commandRateLimiterMaxQueued)
    : store;
  const externalJwts = new ExternalJwtVerifier({ store, clock, logger });
  const apiSessions = new ApiSessions({
    store,
    clock,
    timeoutMs: settings.sessionTimeoutMs,
    onFlushError: (error) => logger.error({ err: error }, 'could not record API session activity'),
    externalJwts,
  });
  const loginThrottle = new LoginThrottle({
    store,
    clock,
    windowMs: settings.loginThrottleWindowMs,
    usernameFailures: settings.loginThrottleUsernameFailures,
    usernameFailuresAllAddresses: settings.loginThrottleUsernameFailuresAllAddresses,
    addressFailures: settings.loginThrottleAddressFailures,
  });
  // An in-memory database (tests) has no file to be beside: its snapshots go to the home folder.
  const snapshots = new Snapshots({
    store,
    clock,
    logger,
    databaseFile: databaseFile === ':memory:' ? join(settings.home, 'ctrl.db') : databaseFile,
  });
  const integrityChecks = new IntegrityChecks({ store, clock, logger, snapshots });
  const health = new Health(store, formatTimestamp(clock()));
  const posture = new PostureMonitor({
    store,
    clock,
    onError: (error) => logger.error({ err: error }, 'could not check sessions against posture'),
    readMfaState: options.readMfaState,
  });
  const predecessorId = succeedInstance(settings.home, workerIndex(), instanceId);
  const heartbeat = new InstanceHeartbeat({
    store,
    clock,
    instanceId,
    name: options.instanceName ?? settings.controllerName ?? settings.advertisedHost,
    apiBase: `https://${settings.advertisedHost}:${settings.advertisedPort}`,
    onError: (error) => logger.error({ err: error }, 'could not record this instance as alive'),
  });
  const fabric = new Fabric({
    store,
    pki,
    settings,
    clock,
    logger,
    metrics,
    instanceId,
    controllerId: clusterId,
    versionHeader: versionHeader(build),
    wireVersion: build.wireVersion,
    instanceOfflineAfterMs: OFFLINE_AFTER_MS,
    predecessorId,
    // Called only once the controller serves, when `deps` exists.
    removeRouter: (routerId) => removeRouterById(deps, routerId),
    recordActivity: (ids) => apiSessions.recordActivity(ids),
    events: events.fabric,
    mgmtSelectors: { terminatorIds: selectTerminatorIds(store), routers: selectRouters(store) },
    eventSource: events.dispatcher,
    entityDeps: { store: requestStore, clock, ids, pki, settings, posture, apiSessions },
  });
  listener.fabric = fabric;
  const deps: AppDeps = {
    settings,
    store: requestStore,
    clock,
    ids,
    pki,
    logger,
    build,
    instanceId,
    clusterId,
    apiSessions,
    integrityChecks,
    snapshots,
    health,
    heartbeat,
    metrics,
    loginThrottle,
    externalJwts,
    posture,
    network: fabric.views,
    inspections: fabric.management.inspections,
  };
  const tls = {
    key: pki.serverKeyPem,
    cert: pki.serverChainPem,
    controlPlane: { protocol: CTRL_ALPN, accept: (socket: TLSSocket) => fabric.controlPlane.accept(socket) },
  };
  const app = await buildApp(deps, options.tls ? tls : undefined);
  listener.app = app;
  await events.start(store, fabric.links, fabric.controlPlane.routers);
  // The management channel (`ziti fabric stream|validate`): the one websocket the API port upgrades to.
  const mgmtSocket = new MgmtSocket({
    admit: admitMgmtChannel(apiSessions, ids.shortId),
    messages: fabric.management.messages,
    logger,
  });
  app.server.on('upgrade', (request, socket, head) => mgmtSocket.upgrade(request, socket, head));
  const metricsListener =
    metrics && settings.metricsAddress ? await listenForMetrics(settings.metricsAddress, metrics, health) : undefined;
  apiSessions.start();
  await heartbeat.start();
  await posture.start();
  await fabric.start();

  let closing: Promise<void> | undefined;
  const stop = async (server: FastifyInstance) => {
    health.markStopping();
    // Router channels are closed at once (the API port's server would wait for those it handed over); marking them
    // offline is a write, which may wait for requests in flight, so it finishes alongside them.
    const routersReleased = fabric.releaseRouters();
    mgmtSocket.close();
    await closeGracefully(server, settings.shutdownTimeoutMs, logger);
    await routersReleased;
    await fabric.stop();
    await integrityChecks.stop();
    await posture.stop();
    await apiSessions.stop();
    await heartbeat.stop();
    await metricsListener?.close();
    await events.stop();
    await opened.close();
  };
  const close = () => (closing ??= stop(app));
  return { app, deps, admin, fabric, metricsListener, events, close };
}

/**
 * Fastify's close stops accepting connections, closes idle ones and waits for requests in flight (new requests on
 * open connections get 503); past `timeoutMs` the remaining connections are closed under them.
 */
async function closeGracefully(app: FastifyInstance, timeoutMs: number, logger: Logger): Promise<void> {
  const timer = setTimeout(() => {
    logger.warn({ timeoutMs }, 'requests still in flight at the shutdown timeout: closing their connections');
    app.server.closeAllConnections();
  }, timeoutMs);
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The PKI files the settings name (checkSettingRelations makes it all or none), paths relative to the settings
 * file's folder (else the home); `file://` and `pem:` values as they are.
 */
export function pkiFilesOf(settings: Settings): PkiFiles | undefined {
  const { pkiServerCert, pkiCa, pkiSigningCert, pkiSigningKey } = settings;
  const serverKey = settings.pkiServerKey ?? settings.pkiKey;
  if (!pkiServerCert || !serverKey || !pkiCa || !pkiSigningCert || !pkiSigningKey) return undefined;
  const base = settings.configFile ? dirname(settings.configFile) : settings.home;
  const at = (source: string) => (/^(pem|file):/.test(source) ? source : resolve(base, source));
  return {
    serverCert: at(pkiServerCert),
    serverKey: at(serverKey),
    ca: at(pkiCa),
    signingCert: at(pkiSigningCert),
    signingKey: at(pkiSigningKey),
  };
}
