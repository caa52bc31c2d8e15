// buildTestApp(): a real controller on an in-memory database in a temporary home, driven through inject().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { openController, type Controller } from '../../src/controller.js';
import { fixedClock } from '../../src/lib/clock.js';
import { settingSpecs, type Settings } from '../../src/settings/settings.schema.js';
import { createScratchSchema, type ScratchSchema } from '../../src/store/postgres/scratch-schema.js';
import type { MfaStateReader } from '../../src/posture/posture-inputs.js';
import { call, type CallOptions, type CallResult } from './conformance.js';

/**
 * The fixed clock every test app starts at: 10:00 UTC on the previous day. Fixed within a run, so expiry is tested
 * by moving it; recent in real time, because TLS clients check the certificates issued under it against the real
 * clock (a constant date would make every TLS test fail a year later).
 */
export const TEST_START = (() => {
  const start = new Date(Date.now() - 24 * 60 * 60_000);
  start.setUTCHours(10, 0, 0, 0);
  return start;
})();

/** The test clock's start plus an offset, as the RFC3339 text timestamps are written in. */
export function testTime(offsetMs = 0): string {
  return new Date(TEST_START.getTime() + offsetMs).toISOString();
}

export const ADMIN_USERNAME = 'admin';
export const ADMIN_PASSWORD = 'admin-password-1';

export interface TestApp extends Controller {
  clock: ReturnType<typeof fixedClock>;
  home: string;
  call(options: CallOptions): Promise<CallResult>;
  /** Logs the default admin in through the API and returns the session token. */
  loginAsAdmin(api?: 'client' | 'management'): Promise<string>;
}

/** The defaults of every setting that has one, as a controller started without any would have them. */
const defaultSettings = Object.fromEntries(
  settingSpecs.filter((spec) => spec.default !== undefined).map((spec) => [spec.key, spec.default]),
);

export function testSettings(home: string, overrides: Partial<Settings> = {}): Settings {
  return {
    ...(defaultSettings as unknown as Settings),
    home,
    configFile: undefined,
    ignoredSettings: [],
    advertisedHost: 'localhost',
    advertisedPort: 1280,
    bindAddress: '127.0.0.1',
    adminUsername: ADMIN_USERNAME,
    adminPassword: ADMIN_PASSWORD,
    sessionTimeoutMs: 30 * 60_000,
    logLevel: 'silent',
    ...overrides,
  };
}

export interface TestAppOptions {
  settings?: Partial<Settings>;
  databaseFile?: string;
  tls?: boolean;
  /** Where the controller logs (default: nowhere, or TEST_LOG_LEVEL's level on stdout). */
  logger?: Logger;
  /** Stands in for MFA state where posture tests need an API session that passed MFA. */
  readMfaState?: MfaStateReader;
  /** The controller's home (a restarted controller's is its predecessor's); the test removes it. Default: a new one. */
  home?: string;
}

/**
 * `ZITI_TEST_DATABASE_URL` (npm run test:postgres) runs every test app on PostgreSQL, each in a fresh schema dropped
 * when it closes; without it, on SQLite in memory (or the file a test names).
 */
export const testDatabaseUrl = process.env.ZITI_TEST_DATABASE_URL || undefined;

export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'ziti-test-'));
  const clock = fixedClock(TEST_START);
  // A test that names its database (instances sharing one) keeps it; otherwise each app gets its own.
  const ownDatabase = !options.databaseFile && !options.settings?.databaseUrl;
  const scratch: ScratchSchema | undefined =
    testDatabaseUrl && ownDatabase ? await createScratchSchema(testDatabaseUrl, 'ziti_test') : undefined;
  const settings = testSettings(home, { ...(scratch ? { databaseUrl: scratch.url } : {}), ...options.settings });
  const controller = await openController(settings, {
    clock,
    logger: options.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    databaseFile: options.databaseFile ?? ':memory:',
    tls: options.tls ?? false,
    ...(options.readMfaState ? { readMfaState: options.readMfaState } : {}),
  });
  const testApp: TestApp = {
    ...controller,
    clock,
    home,
    call: (callOptions) => call(controller.app, callOptions),
    async loginAsAdmin(api = 'management') {
      const result = await call(controller.app, {
        method: 'POST',
        url: `/edge/${api}/v1/authenticate?method=password`,
        payload: { username: ADMIN_USERNAME, password: ADMIN_PASSWORD },
      });
      if (result.status !== 200) throw new Error(`admin login failed: ${result.status} ${result.text}`);
      return (result.body as { data: { token: string } }).data.token;
    },
    async close() {
      await controller.close();
      await scratch?.drop();
      if (!options.home) rmSync(home, { recursive: true, force: true });
    },
  };
  return testApp;
}
