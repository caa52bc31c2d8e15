// The loader builds Settings key by key from the spec table: every key must have its spec, or it would be missing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { settingSpecs, type Settings } from './settings.schema.js';

/** Every key of Settings: a key added to the interface and not here fails to compile. */
const everyKey: Record<keyof Settings, true> = {
  home: true,
  configFile: true,
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
  unauthenticatedBodyLimit: true,
  authenticatedBodyLimit: true,
  headersTimeoutMs: true,
  requestTimeoutMs: true,
  keepAliveTimeoutMs: true,
  idleTimeoutMs: true,
  maxConnections: true,
  maxConnectionsPerClient: true,
};

test('every setting but home and configFile has exactly one spec', () => {
  const specKeys = settingSpecs.map((spec) => spec.key);
  assert.equal(new Set(specKeys).size, specKeys.length);
  const expected = Object.keys(everyKey).filter((key) => key !== 'home' && key !== 'configFile');
  assert.deepEqual([...specKeys].sort(), expected.sort());
});
