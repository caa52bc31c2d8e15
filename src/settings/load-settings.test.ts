import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { loadSettings } from './load-settings.js';
import { SettingsError, type Settings } from './settings.schema.js';

describe('loadSettings', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'settings-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it('uses the defaults when nothing is given', () => {
    const settings = loadSettings({ argv: [], env: {}, cwd });
    assert.equal(settings.home, join(cwd, 'ziti-home'));
    assert.equal(settings.configFile, undefined);
    assert.equal(settings.advertisedHost, 'localhost');
    assert.equal(settings.advertisedPort, 1280);
    assert.equal(settings.bindAddress, '0.0.0.0');
    assert.equal(settings.adminUsername, 'admin');
    assert.equal(settings.adminPassword, undefined);
    assert.equal(settings.sessionTimeoutMs, 30 * 60_000);
    assert.equal(settings.totpIssuer, 'openziti.io');
    assert.equal(settings.unauthenticatedBodyLimit, 64 * 1024);
    assert.equal(settings.authenticatedBodyLimit, 1024 * 1024);
    assert.equal(settings.headersTimeoutMs, 10_000);
    assert.equal(settings.requestTimeoutMs, 30_000);
    assert.equal(settings.keepAliveTimeoutMs, 5_000);
    assert.equal(settings.idleTimeoutMs, 60_000);
    assert.equal(settings.maxConnections, 4096);
    assert.equal(settings.maxPendingConnectionsPerClient, 256);
    assert.equal(settings.maxWaitingConnectionsPerClient, 1024);
    assert.deepEqual(
      [
        settings.loginThrottleWindowMs,
        settings.loginThrottleUsernameFailures,
        settings.loginThrottleUsernameFailuresAllAddresses,
        settings.loginThrottleAddressFailures,
      ],
      [5 * 60_000, 10, 100, 100],
    );
    assert.deepEqual(
      [
        settings.ctrlAdvertisedHost,
        settings.ctrlAdvertisedPort,
        settings.ctrlBindAddress,
        settings.ctrlHeartbeatIntervalMs,
        settings.ctrlCloseUnresponsiveMs,
        settings.ctrlConnectTimeoutMs,
      ],
      [undefined, 6262, '0.0.0.0', 10_000, 30_000, 5000],
    );
  });

  it('reads the TOTP issuer and the login throttle from YAML', () => {
    writeFileSync(
      join(cwd, 'ctrl.yml'),
      'edge:\n  totp:\n    hostname: ziti.example.com\n  api:\n    loginThrottle:\n      window: 2m\n      usernameFailures: 4\n      usernameFailuresAllAddresses: 20\n      addressFailures: 40\n',
    );
    const settings = loadSettings({ argv: ['--home', cwd], env: {}, cwd });
    assert.equal(settings.totpIssuer, 'ziti.example.com');
    assert.deepEqual(
      [
        settings.loginThrottleWindowMs,
        settings.loginThrottleUsernameFailures,
        settings.loginThrottleUsernameFailuresAllAddresses,
        settings.loginThrottleAddressFailures,
      ],
      [2 * 60_000, 4, 20, 40],
    );
  });

  it('reads HTTP limits and timeouts from every source', () => {
    const file = join(cwd, 'http.yml');
    writeFileSync(file, 'http:\n  authenticatedBodyLimit: 2MiB\n  requestTimeout: 45s\n  maxConnections: 100\n');
    const env = {
      ZITI_CONFIG: file,
      ZITI_HTTP_UNAUTHENTICATED_BODY_LIMIT: '32768',
      ZITI_HTTP_KEEP_ALIVE_TIMEOUT: '2500ms',
    };
    const argv = ['--headers-timeout', '3s', '--idle-timeout', '2m', '--max-pending-connections-per-client', '10'];
    const settings = loadSettings({ argv, env, cwd });
    assert.equal(settings.authenticatedBodyLimit, 2 * 1024 * 1024);
    assert.equal(settings.unauthenticatedBodyLimit, 32768);
    assert.equal(settings.requestTimeoutMs, 45_000);
    assert.equal(settings.headersTimeoutMs, 3_000);
    assert.equal(settings.keepAliveTimeoutMs, 2_500);
    assert.equal(settings.idleTimeoutMs, 120_000);
    assert.equal(settings.maxConnections, 100);
    assert.equal(settings.maxPendingConnectionsPerClient, 10);
  });

  it('reads <home>/ctrl.yml when present', () => {
    const home = join(cwd, 'h');
    rmSync(home, { recursive: true, force: true });
    writeFileSync(join(cwd, 'ctrl.yml'), 'edge:\n  api:\n    advertisedPort: 1999\n');
    const settings = loadSettings({ argv: ['--home', cwd], env: {}, cwd });
    assert.equal(settings.configFile, join(cwd, 'ctrl.yml'));
    assert.equal(settings.advertisedPort, 1999);
  });

  it('takes flags over environment over YAML over defaults', () => {
    const file = join(cwd, 'custom.yml');
    writeFileSync(
      file,
      'edge:\n  api:\n    advertisedHost: from-yaml.example\n    advertisedPort: 1001\n    sessionTimeout: 5m\nadmin:\n  username: yamluser\n',
    );
    const env = { ZITI_CONFIG: file, ZITI_CTRL_EDGE_ADVERTISED_PORT: '1002', ZITI_USER: 'envuser' };
    const settings = loadSettings({ argv: ['--username', 'flaguser'], env, cwd });
    assert.equal(settings.advertisedHost, 'from-yaml.example'); // YAML over default
    assert.equal(settings.advertisedPort, 1002); // environment over YAML
    assert.equal(settings.adminUsername, 'flaguser'); // flag over environment
    assert.equal(settings.sessionTimeoutMs, 5 * 60_000);
  });

  it('lets --config win over ZITI_CONFIG and --home over ZITI_HOME', () => {
    const a = join(cwd, 'a.yml');
    const b = join(cwd, 'b.yml');
    writeFileSync(a, 'edge:\n  api:\n    advertisedPort: 1111\n');
    writeFileSync(b, 'edge:\n  api:\n    advertisedPort: 2222\n');
    const settings = loadSettings({
      argv: ['--config', b, '--home', 'flag-home'],
      env: { ZITI_CONFIG: a, ZITI_HOME: 'env-home' },
      cwd,
    });
    assert.equal(settings.advertisedPort, 2222);
    assert.equal(settings.home, join(cwd, 'flag-home'));
  });

  it('listens on the advertised port and the bind address given', () => {
    const settings = loadSettings({
      argv: ['--bind', '127.0.0.1', '--port', '8443', '--address', '10.1.2.3'],
      env: {},
      cwd,
    });
    assert.equal(settings.bindAddress, '127.0.0.1');
    assert.equal(settings.advertisedPort, 8443);
    assert.equal(settings.advertisedHost, '10.1.2.3');
  });

  it('names the key in every error', () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--port', '70000'], {}, /\[edge\.api\.advertisedPort\] \(from --port\) must be a port/],
      [
        [],
        { ZITI_SESSION_TIMEOUT: 'soon' },
        /\[edge\.api\.sessionTimeout\] \(from ZITI_SESSION_TIMEOUT\) must be a duration/,
      ],
      [[], { ZITI_SESSION_TIMEOUT: '30s' }, /\[edge\.api\.sessionTimeout\].*at least 1m/],
      [['--password', 'abc'], {}, /\[admin\.password\].*5 to 100/],
      [['--address', 'not a host'], {}, /\[edge\.api\.advertisedHost\]/],
      [
        ['--login-throttle-username-failures', '0'],
        {},
        /\[edge\.api\.loginThrottle\.usernameFailures\].*whole number from 1/,
      ],
      [
        [],
        { ZITI_LOGIN_THROTTLE_ADDRESS_FAILURES: 'many' },
        /\[edge\.api\.loginThrottle\.addressFailures\] \(from ZITI_LOGIN_THROTTLE_ADDRESS_FAILURES\)/,
      ],
      [[], { ZITI_LOGIN_THROTTLE_WINDOW: '500ms' }, /\[edge\.api\.loginThrottle\.window\].*at least 1s/],
      [
        ['--authenticated-body-limit', 'big'],
        {},
        /\[http\.authenticatedBodyLimit\] \(from --authenticated-body-limit\) must be a size/,
      ],
      [
        [],
        { ZITI_HTTP_UNAUTHENTICATED_BODY_LIMIT: '1KiB' },
        /\[http\.unauthenticatedBodyLimit\].*at least 16384 bytes/,
      ],
      [['--request-timeout', '500ms'], {}, /\[http\.requestTimeout\].*at least 1s/],
      [['--max-connections', '0'], {}, /\[http\.maxConnections\].*at least 1/],
      [
        ['--headers-timeout', '1m'],
        {},
        /\[http\.headersTimeout\] \(1m\) must not exceed \[http\.requestTimeout\] \(30s\)/,
      ],
      [
        ['--unauthenticated-body-limit', '2MiB'],
        {},
        /\[http\.unauthenticatedBodyLimit\].*must not exceed \[http\.authenticatedBodyLimit\]/,
      ],
    ];
    for (const [argv, env, pattern] of cases) {
      assert.throws(
        () => loadSettings({ argv, env, cwd }),
        (error: unknown) => error instanceof SettingsError && pattern.test(error.message),
      );
    }
  });

  it('names unknown keys in the YAML file and a missing explicit file', () => {
    const file = join(cwd, 'bad.yml');
    writeFileSync(file, 'edge:\n  api:\n    advertisedPrt: 1\n');
    assert.throws(
      () => loadSettings({ argv: ['--config', file], env: {}, cwd }),
      /\[edge\.api\.advertisedPrt\] unknown setting/,
    );
    assert.throws(() => loadSettings({ argv: ['--config', join(cwd, 'missing.yml')], env: {}, cwd }), /does not exist/);
  });

  it('rejects unknown flags', () => {
    assert.throws(() => loadSettings({ argv: ['--nope', 'x'], env: {}, cwd }), SettingsError);
  });
  it('reads the operating settings: access log, metrics address, controller name, write queue, shutdown timeout', () => {
    const defaults = loadSettings({ argv: [], env: {}, cwd });
    assert.deepEqual(
      [
        defaults.accessLog,
        defaults.metricsAddress,
        defaults.controllerName,
        defaults.commandRateLimiterEnabled,
        defaults.commandRateLimiterMaxQueued,
        defaults.shutdownTimeoutMs,
      ],
      [true, undefined, undefined, true, 100, 10_000],
    );
    const file = join(cwd, 'ops.yml');
    writeFileSync(
      file,
      'log:\n  access: false\nmetrics:\n  address: "[::1]:9100"\ncontroller:\n  name: ctrl-1\ncommandRateLimiter:\n  enabled: false\n  maxQueued: 250\nshutdown:\n  timeout: 30s\n',
    );
    const fromYaml = loadSettings({ argv: ['--config', file], env: {}, cwd });
    assert.deepEqual(
      [
        fromYaml.accessLog,
        fromYaml.metricsAddress,
        fromYaml.controllerName,
        fromYaml.commandRateLimiterEnabled,
        fromYaml.commandRateLimiterMaxQueued,
        fromYaml.shutdownTimeoutMs,
      ],
      [false, { host: '::1', port: 9100 }, 'ctrl-1', false, 250, 30_000],
    );
    const fromFlags = loadSettings({
      argv: ['--access-log', 'true', '--metrics-address', '127.0.0.1:0', '--shutdown-timeout', '0s'],
      env: { ZITI_COMMAND_RATE_LIMITER_MAX_QUEUED: '10' },
      cwd,
    });
    assert.deepEqual(
      [
        fromFlags.accessLog,
        fromFlags.metricsAddress,
        fromFlags.commandRateLimiterMaxQueued,
        fromFlags.shutdownTimeoutMs,
      ],
      [true, { host: '127.0.0.1', port: 0 }, 10, 0],
    );
  });

  it('reads the number of worker processes (default 1) from flag, environment or YAML, within 1 to 64', () => {
    assert.equal(loadSettings({ argv: [], env: {}, cwd }).workers, 1);
    const file = join(cwd, 'workers.yml');
    writeFileSync(file, 'workers: 3\n');
    assert.equal(loadSettings({ argv: ['--config', file], env: {}, cwd }).workers, 3);
    assert.equal(loadSettings({ argv: ['--config', file], env: { ZITI_WORKERS: '2' }, cwd }).workers, 2);
    assert.equal(loadSettings({ argv: ['--workers', '4'], env: { ZITI_WORKERS: '2' }, cwd }).workers, 4);
    assert.throws(() => loadSettings({ argv: ['--workers', '0'], env: {}, cwd }), /\[workers\].*1 to 64/);
  });

  it('names the operating setting that is wrong', () => {
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['--metrics-address', '9100'], {}, /\[metrics\.address\].*host:port/],
      [['--metrics-address', 'host:99999'], {}, /\[metrics\.address\].*0 to 65535/],
      [['--access-log', 'yes'], {}, /\[log\.access\].*true or false/],
      [[], { ZITI_COMMAND_RATE_LIMITER_MAX_QUEUED: '5' }, /\[commandRateLimiter\.maxQueued\].*10 to/],
      [['--shutdown-timeout', '1h'], {}, /\[shutdown\.timeout\].*at most 10m/],
    ];
    for (const [argv, env, pattern] of cases) {
      assert.throws(
        () => loadSettings({ argv, env, cwd }),
        (error: unknown) => error instanceof SettingsError && pattern.test(error.message),
        String(pattern),
      );
    }
  });

  it("reads the router control plane's settings under upstream quickstart's names, flags and YAML", () => {
    const env = {
      ZITI_CTRL_ADVERTISED_ADDRESS: 'ctrl.example.com',
      ZITI_CTRL_ADVERTISED_PORT: '7000',
      ZITI_CTRL_CLOSE_UNRESPONSIVE_TIMEOUT: '45s',
    };
    const fromEnv = loadSettings({ argv: ['--ctrl-bind', '127.0.0.1'], env, cwd });
    assert.deepEqual(
      [
        fromEnv.ctrlAdvertisedHost,
        fromEnv.ctrlAdvertisedPort,
        fromEnv.ctrlBindAddress,
        fromEnv.ctrlCloseUnresponsiveMs,
      ],
      ['ctrl.example.com', 7000, '127.0.0.1', 45_000],
    );
    const file = join(cwd, 'ctrl-settings.yml');
    writeFileSync(
      file,
      'ctrl:\n  advertisedPort: 6363\n  heartbeats:\n    sendInterval: 5s\n  options:\n    connectTimeout: 2s\n',
    );
    const fromYaml = loadSettings({ argv: ['--config', file], env: {}, cwd });
    assert.deepEqual(
      [fromYaml.ctrlAdvertisedPort, fromYaml.ctrlHeartbeatIntervalMs, fromYaml.ctrlConnectTimeoutMs],
      [6363, 5000, 2000],
    );
    assert.throws(
      () => loadSettings({ argv: ['--ctrl-port', '0'], env: {}, cwd }),
      /\[ctrl\.advertisedPort\] \(from --ctrl-port\) must be a port/,
    );
  });

  it('reads upstream’s network section: cycle, route timeout, retries, router cost floor, smart rerouting', () => {
    const defaults = loadSettings({ argv: [], env: {}, cwd });
    const network = (s: Settings) => [
      s.networkCycleMs,
      s.networkRouteTimeoutMs,
      s.networkCreateCircuitRetries,
      s.networkMinRouterCost,
      s.networkSmartRerouteFraction,
      s.networkSmartRerouteCap,
      s.networkSmartMinCostDelta,
    ];
    assert.deepEqual(network(defaults), [60_000, 10_000, 2, 10, 0.02, 4, 15]);
    const file = join(cwd, 'network-settings.yml');
    writeFileSync(
      file,
      'network:\n  cycleSeconds: 5\n  routeTimeoutSeconds: 3\n  createCircuitRetries: 3\n  minRouterCost: 0\n' +
        '  smart:\n    rerouteFraction: 0.5\n    rerouteCap: 10\n    minCostDelta: 1\n',
    );
    assert.deepEqual(network(loadSettings({ argv: ['--config', file], env: {}, cwd })), [5000, 3000, 3, 0, 0.5, 10, 1]);
    writeFileSync(file, 'network:\n  smart:\n    rerouteFraction: 2\n');
    assert.throws(
      () => loadSettings({ argv: ['--config', file], env: {}, cwd }),
      /\[network\.smart\.rerouteFraction\] \(from .*\) must be a number from 0 to 1/,
    );
  });
});
