// The loader builds Settings key by key from the spec table: every key must have its spec, or it would be missing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flag, integer, type SettingSpec } from './setting-spec.js';
import { settingSpecs, type Settings } from './settings.schema.js';

/** Every key of Settings: a key added to the interface and not here fails to compile. */
const everyKey: Record<keyof Settings, true> = {
  home: true,
  configFile: true,
  ignoredSettings: true,
  databaseUrl: true,
  databasePoolSize: true,
  advertisedHost: true,
  advertisedPort: true,
  bindAddress: true,
  adminUsername: true,
  adminPassword: true,
  sessionTimeoutMs: true,
  logLevel: true,
  totpIssuer: true,
  loginThrottleWindowMs: true,
  loginThrottleUsernameFailures: true,
  loginThrottleUsernameFailuresAllAddresses: true,
  loginThrottleAddressFailures: true,
  accessLog: true,
  metricsAddress: true,
  controllerName: true,
  workers: true,
  commandRateLimiterEnabled: true,
  commandRateLimiterMaxQueued: true,
  shutdownTimeoutMs: true,
  ctrlAdvertisedHost: true,
  ctrlAdvertisedPort: true,
  ctrlBindAddress: true,
  ctrlHeartbeatIntervalMs: true,
  ctrlCloseUnresponsiveMs: true,
  ctrlConnectTimeoutMs: true,
  networkCycleMs: true,
  networkRouteTimeoutMs: true,
  networkCreateCircuitRetries: true,
  networkMinRouterCost: true,
  networkSmartRerouteFraction: true,
  networkSmartRerouteCap: true,
  networkSmartMinCostDelta: true,
  unauthenticatedBodyLimit: true,
  authenticatedBodyLimit: true,
  headersTimeoutMs: true,
  requestTimeoutMs: true,
  keepAliveTimeoutMs: true,
  idleTimeoutMs: true,
  maxConnections: true,
  maxPendingConnectionsPerClient: true,
  maxWaitingConnectionsPerClient: true,
  pkiServerCert: true,
  pkiServerKey: true,
  pkiKey: true,
  pkiCa: true,
  pkiSigningCert: true,
  pkiSigningKey: true,
  eventLoggers: true,
  entityChangeRetentionMs: true,
};

test('every setting but home, configFile and ignoredSettings has exactly one spec', () => {
  const specKeys = settingSpecs.map((spec) => spec.key);
  assert.equal(new Set(specKeys).size, specKeys.length);
  const expected = Object.keys(everyKey).filter(
    (key) => key !== 'home' && key !== 'configFile' && key !== 'ignoredSettings',
  );
  assert.deepEqual([...specKeys].sort(), expected.sort());
});

// The type test is the compiler's (npm run typecheck): each @ts-expect-error fails the build if the error goes away.
test("a spec's parser and default are of its key's type", () => {
  const workers: SettingSpec<Settings> = { key: 'workers', yamlPath: 'workers', parse: integer(1, 64), default: 1 };
  // @ts-expect-error: a flag's parser gives a boolean, and workers is a number
  const wrongParser: SettingSpec<Settings> = { key: 'workers', yamlPath: 'workers', parse: flag };
  // @ts-expect-error: a default of another type
  const wrongDefault: SettingSpec<Settings> = { key: 'workers', yamlPath: 'workers', parse: integer(1), default: '1' };
  assert.equal(workers.parse('2'), 2);
  assert.throws(() => wrongParser.parse('2'), /must be true or false/);
  assert.equal(wrongDefault.default, '1');
});
