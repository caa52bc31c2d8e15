// Assembles a controller from settings: home folder, PKI, store, default admin, app. main.ts and tests share it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { AppDeps } from './app-deps.js';
import { ApiSessions } from './auth/api-sessions.js';
import { ensureDefaultAdmin, type DefaultAdminResult } from './auth/bootstrap-admin.js';
import { systemClock, type Clock } from './lib/clock.js';
import { defaultIds, newCuid, type IdGenerators } from './lib/ids.js';
import { ensurePki } from './pki/ensure-pki.js';
import { PostureMonitor } from './posture/posture-monitor.js';
import type { MfaStateReader } from './posture/posture-inputs.js';
import type { Settings } from './settings/settings.schema.js';
import { migrations } from './store/migrations/index.js';
import { openSqliteStore } from './store/sqlite/sqlite-store.js';
import { readBuildInfo } from './system/build-info.js';

export interface ControllerOptions {
  clock?: Clock;
  ids?: IdGenerators;
  logger?: Logger;
  /** Database file; defaults to `<home>/ctrl.db`. ':memory:' for fast tests. */
  databaseFile?: string;
  /** Serve HTTPS (true for a listening controller; tests that use inject() may skip TLS). */
  tls?: boolean;
  /** How posture learns MFA state; posture's own seam (no MFA yet) by default. */
  readMfaState?: MfaStateReader;
}

export interface Controller {
  app: FastifyInstance;
  deps: AppDeps;
  admin: DefaultAdminResult;
  close(): Promise<void>;
}

export async function openController(settings: Settings, options: ControllerOptions = {}): Promise<Controller> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? pino({ level: settings.logLevel });
  mkdirSync(settings.home, { recursive: true, mode: 0o700 });
  const pki = await ensurePki({ home: settings.home, advertisedHost: settings.advertisedHost, now: clock });
  const store = await openSqliteStore({ file: options.databaseFile ?? join(settings.home, 'ctrl.db'), migrations });
  const ids = options.ids ?? defaultIds;
  const admin = await ensureDefaultAdmin({ store, clock, ids, username: settings.adminUsername, password: settings.adminPassword });
  const apiSessions = new ApiSessions({
    store,
    clock,
    timeoutMs: settings.sessionTimeoutMs,
    onFlushError: (error) => logger.error({ err: error }, 'could not record API session activity'),
  });
  const posture = new PostureMonitor({
    store,
    clock,
    onError: (error) => logger.error({ err: error }, 'could not check sessions against posture'),
    ...(options.readMfaState ? { readMfaState: options.readMfaState } : {}),
  });
  const deps: AppDeps = { settings, store, clock, ids, pki, logger, build: readBuildInfo(), instanceId: newCuid(), apiSessions, posture };
  const app = await buildApp(deps, options.tls ? { key: pki.serverKeyPem, cert: pki.serverChainPem } : undefined);
  apiSessions.start();
  await posture.start();
  return {
    app,
    deps,
    admin,
    async close() {
      await app.close();
      await posture.stop();
      await apiSessions.stop();
      await store.close();
    },
  };
}
