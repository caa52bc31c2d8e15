// The controller's settings: one typed table that says, per key, where it may come from and how it is checked.
import { isIP } from 'node:net';
import { parseDuration } from '../lib/clock.js';

export interface Settings {
  home: string;
  /** The YAML file the settings were read from, if any. */
  configFile: string | undefined;
  /** `postgres://…`: the data lives in that PostgreSQL database; undefined: in SQLite in the home folder. */
  databaseUrl: string | undefined;
  /**
   * PostgreSQL connections each process keeps at most (reads and writes share them; see docs/operating.md, "On
   * PostgreSQL").
   */
  databasePoolSize: number;
  advertisedHost: string;
  advertisedPort: number;
  bindAddress: string;
  adminUsername: string;
  /** Undefined means "generate one on first start". */
  adminPassword: string | undefined;
  sessionTimeoutMs: number;
  logLevel: string;
  /** The issuer named in TOTP provisioning URLs (what authenticator apps show). */
  totpIssuer: string;
  /** Failed logins are counted per username and per source address within windows of this length. */
  loginThrottleWindowMs: number;
  /**
   * Failed password logins for one username from one source address (or MFA codes for one identity) per window before
   * 429.
   */
  loginThrottleUsernameFailures: number;
  /**
   * Failed password logins for one username from every address per window; past it, only addresses without a failure on
   * it may try.
   */
  loginThrottleUsernameFailuresAllAddresses: number;
  /** Failed logins from one source address per window before 429. */
  loginThrottleAddressFailures: number;
  /** One info line per request (request id, method, operation, status, duration, caller identity). */
  accessLog: boolean;
  /** Where `/metrics`, `/health` and `/ready` are served over plain HTTP; undefined: no metrics listener. */
  metricsAddress: ListenAddress | undefined;
  /** The name `GET /controllers` lists this controller under; undefined: the advertised host. */
  controllerName: string | undefined;
  /** Processes serving on this machine, sharing the listening port and the database (node:cluster). */
  workers: number;
  /** Model changes wait in one bounded queue; past `commandRateLimiterMaxQueued` waiting, they are refused (429). */
  commandRateLimiterEnabled: boolean;
  commandRateLimiterMaxQueued: number;
  /** How long SIGTERM waits for requests in flight before closing their connections. */
  shutdownTimeoutMs: number;
  /** The router control plane's address routers are given (`ctrl.endpoint`); undefined: the API's advertised host. */
  ctrlAdvertisedHost: string | undefined;
  /** Its port, also the port it listens on (upstream's default 6262). */
  ctrlAdvertisedPort: number;
  ctrlBindAddress: string;
  /** How often the controller stamps a heartbeat on a router's channel. */
  ctrlHeartbeatIntervalMs: number;
  /** A router's channel whose heartbeats go unanswered this long is closed. */
  ctrlCloseUnresponsiveMs: number;
  /** A control connection must complete its hello within this (upstream's connectTimeout, 5 s). */
  ctrlConnectTimeoutMs: number;
  /** Largest request body, in bytes, from a caller without a session or to an operation that needs none. */
  unauthenticatedBodyLimit: number;
  /** Largest request body, in bytes, from an authenticated caller to an operation that needs a session. */
  authenticatedBodyLimit: number;
  /** Time to receive a request's headers, from the start of the connection or of the request. */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included. */
  requestTimeoutMs: number;
  /** How long a connection may wait idle for its next request. */
  keepAliveTimeoutMs: number;
  /** A connection with no traffic either way for this long is closed (e.g. a client that stops reading). */
  idleTimeoutMs: number;
  /** Open connections at most; more are refused at once. */
  maxConnections: number;
  /** Open connections at most from one client address. */
  maxConnectionsPerClient: number;
}

export interface ListenAddress {
  host: string;
  port: number;
}

type Parse<T = unknown> = (raw: unknown) => T;

export interface SettingSpec {
  key: keyof Settings;
  /** Path in the YAML file; also the name used in error messages. */
  yamlPath: string;
  env?: string;
  flag?: string;
  parse: Parse;
  default?: unknown;
}

export class SettingsError extends Error {}

const text =
  (min = 1, max = 255): Parse<string> =>
  (raw) => {
    const value = typeof raw === 'number' ? String(raw) : raw;
    if (typeof value !== 'string' || value.length < min || value.length > max) {
      throw new Error(`must be a string of ${min} to ${max} characters`);
    }
    return value;
  };

const port: Parse<number> = (raw) => {
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65535) {
    throw new Error('must be a port number from 1 to 65535');
  }
  return value;
};

const host: Parse<string> = (raw) => {
  const value = text(1, 253)(raw);
  if (
    isIP(value) === 0 &&
    !/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(value)
  ) {
    throw new Error('must be a host name or an IP address');
  }
  return value;
};

/** `1m`, `5s` or `250ms`: the way a bound is written in a message. */
function durationText(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

const duration =
  (minMs: number, maxMs = Infinity): Parse =>
  (raw) => {
    const ms = typeof raw === 'string' ? parseDuration(raw) : undefined;
    if (ms === undefined) throw new Error('must be a duration such as 30m, 90s or 1h');
    if (ms < minMs) throw new Error(`must be at least ${durationText(minMs)}`);
    if (ms > maxMs) throw new Error(`must be at most ${durationText(maxMs)}`);
    return ms;
  };

const integer =
  (min: number, max = Number.MAX_SAFE_INTEGER): Parse =>
  (raw) => {
    const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new Error(
        max === Number.MAX_SAFE_INTEGER
          ? `must be a whole number of at least ${min}`
          : `must be a whole number from ${min} to ${max}`,
      );
    }
    return value;
  };

const flag: Parse = (raw) => {
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new Error('must be true or false');
};

/** `host:port`, `[v6]:port`; the port may be 0 (any free port, for tests). */
const listenAddress: Parse<ListenAddress> = (raw) => {
  const match = typeof raw === 'string' ? /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(raw) : null;
  if (!match) throw new Error('must be host:port, such as 127.0.0.1:9100');
  const portNumber = Number(match[3]);
  if (portNumber > 65535) throw new Error('must be host:port with a port from 0 to 65535');
  return { host: host(match[1] ?? match[2]), port: portNumber };
};

const byteUnits: Record<string, number> = { '': 1, B: 1, KiB: 1024, MiB: 1024 * 1024 };

/** A size in bytes: `65536`, `64KiB` or `1MiB`. */
const byteSize =
  (minBytes: number): Parse =>
  (raw) => {
    const match = /^(\d+)\s*(B|KiB|MiB)?$/.exec(
      typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '',
    );
    if (!match) throw new Error('must be a size in bytes such as 65536, 64KiB or 1MiB');
    const bytes = Number(match[1]) * (byteUnits[match[2] ?? ''] ?? 1);
    if (bytes < minBytes) throw new Error(`must be at least ${minBytes} bytes`);
    return bytes;
  };

/** A PostgreSQL connection URL; its text is never repeated in a message, as it may hold a password. */
const databaseUrl: Parse = (raw) => {
  let url: URL | undefined;
  try {
    url = typeof raw === 'string' ? new URL(raw) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')) {
    throw new Error('must be a PostgreSQL URL such as postgres://user:password@host:5432/database');
  }
  return raw;
};

const oneOf =
  (...values: string[]): Parse =>
  (raw) => {
    if (typeof raw !== 'string' || !values.includes(raw)) throw new Error(`must be one of ${values.join(', ')}`);
    return raw;
  };

/** Every setting except `home` and `configFile`, which decide where the others are read from. */
export const settingSpecs: readonly SettingSpec[] = [
  { key: 'databaseUrl', yamlPath: 'db.url', env: 'ZITI_DATABASE_URL', flag: 'database-url', parse: databaseUrl },
  {
    key: 'databasePoolSize',
    yamlPath: 'db.poolSize',
    env: 'ZITI_DATABASE_POOL_SIZE',
    flag: 'database-pool-size',
    parse: integer(4, 1000),
    default: 10,
  },
  {
    key: 'advertisedHost',
    yamlPath: 'edge.api.advertisedHost',
    env: 'ZITI_CTRL_EDGE_ADVERTISED_ADDRESS',
    flag: 'address',
    parse: host,
    default: 'localhost',
  },
  {
    key: 'advertisedPort',
    yamlPath: 'edge.api.advertisedPort',
    env: 'ZITI_CTRL_EDGE_ADVERTISED_PORT',
    flag: 'port',
    parse: port,
    default: 1280,
  },
  {
    key: 'bindAddress',
    yamlPath: 'edge.api.bindAddress',
    env: 'ZITI_CTRL_EDGE_BIND_ADDRESS',
    flag: 'bind',
    parse: host,
    default: '0.0.0.0',
  },
  // The router control plane (issue 22), with upstream quickstart's environment names.
  {
    key: 'ctrlAdvertisedHost',
    yamlPath: 'ctrl.advertisedAddress',
    env: 'ZITI_CTRL_ADVERTISED_ADDRESS',
    flag: 'ctrl-address',
    parse: host,
  },
  {
    key: 'ctrlAdvertisedPort',
    yamlPath: 'ctrl.advertisedPort',
    env: 'ZITI_CTRL_ADVERTISED_PORT',
    flag: 'ctrl-port',
    parse: port,
    default: 6262,
  },
  {
    key: 'ctrlBindAddress',
    yamlPath: 'ctrl.bindAddress',
    env: 'ZITI_CTRL_BIND_ADDRESS',
    flag: 'ctrl-bind',
    parse: host,
    default: '0.0.0.0',
  },
  {
    key: 'ctrlHeartbeatIntervalMs',
    yamlPath: 'ctrl.heartbeats.sendInterval',
    env: 'ZITI_CTRL_HEARTBEAT_INTERVAL',
    parse: duration(1000),
    default: 10_000,
  },
  {
    key: 'ctrlConnectTimeoutMs',
    yamlPath: 'ctrl.options.connectTimeout',
    env: 'ZITI_CTRL_CONNECT_TIMEOUT',
    parse: duration(100, 60_000),
    default: 5000,
  },
  {
    key: 'ctrlCloseUnresponsiveMs',
    yamlPath: 'ctrl.heartbeats.closeUnresponsiveTimeout',
    env: 'ZITI_CTRL_CLOSE_UNRESPONSIVE_TIMEOUT',
    parse: duration(1000),
    default: 30_000,
  },
  {
    key: 'sessionTimeoutMs',
    yamlPath: 'edge.api.sessionTimeout',
    env: 'ZITI_SESSION_TIMEOUT',
    flag: 'session-timeout',
    parse: duration(60_000),
    default: 30 * 60_000,
  },
  {
    key: 'adminUsername',
    yamlPath: 'admin.username',
    env: 'ZITI_USER',
    flag: 'username',
    parse: text(4, 100),
    default: 'admin',
  },
  { key: 'adminPassword', yamlPath: 'admin.password', env: 'ZITI_PWD', flag: 'password', parse: text(5, 100) },
  {
    key: 'totpIssuer',
    yamlPath: 'edge.totp.hostname',
    env: 'ZITI_TOTP_HOSTNAME',
    flag: 'totp-hostname',
    parse: text(1, 253),
    default: 'openziti.io',
  },
  {
    key: 'loginThrottleWindowMs',
    yamlPath: 'edge.api.loginThrottle.window',
    env: 'ZITI_LOGIN_THROTTLE_WINDOW',
    flag: 'login-throttle-window',
    parse: duration(1000),
    default: 5 * 60_000,
  },
  {
    key: 'loginThrottleUsernameFailures',
    yamlPath: 'edge.api.loginThrottle.usernameFailures',
    env: 'ZITI_LOGIN_THROTTLE_USERNAME_FAILURES',
    flag: 'login-throttle-username-failures',
    parse: integer(1, 1_000_000),
    default: 10,
  },
  {
    key: 'loginThrottleUsernameFailuresAllAddresses',
    yamlPath: 'edge.api.loginThrottle.usernameFailuresAllAddresses',
    env: 'ZITI_LOGIN_THROTTLE_USERNAME_FAILURES_ALL_ADDRESSES',
    flag: 'login-throttle-username-failures-all-addresses',
    parse: integer(1, 1_000_000),
    default: 100,
  },
  {
    key: 'loginThrottleAddressFailures',
    yamlPath: 'edge.api.loginThrottle.addressFailures',
    env: 'ZITI_LOGIN_THROTTLE_ADDRESS_FAILURES',
    flag: 'login-throttle-address-failures',
    parse: integer(1, 1_000_000),
    default: 100,
  },
  // The smallest body cap still takes the largest legitimate unauthenticated body: an enrollment with two RSA-4096
  // CSRs (~2 KiB each in PEM) and the SDKs' envInfo/sdkInfo.
  {
    key: 'unauthenticatedBodyLimit',
    yamlPath: 'http.unauthenticatedBodyLimit',
    env: 'ZITI_HTTP_UNAUTHENTICATED_BODY_LIMIT',
    flag: 'unauthenticated-body-limit',
    parse: byteSize(16 * 1024),
    default: 64 * 1024,
  },
  {
    key: 'authenticatedBodyLimit',
    yamlPath: 'http.authenticatedBodyLimit',
    env: 'ZITI_HTTP_AUTHENTICATED_BODY_LIMIT',
    flag: 'authenticated-body-limit',
    parse: byteSize(16 * 1024),
    default: 1024 * 1024,
  },
  {
    key: 'headersTimeoutMs',
    yamlPath: 'http.headersTimeout',
    env: 'ZITI_HTTP_HEADERS_TIMEOUT',
    flag: 'headers-timeout',
    parse: duration(1000),
    default: 10_000,
  },
  {
    key: 'requestTimeoutMs',
    yamlPath: 'http.requestTimeout',
    env: 'ZITI_HTTP_REQUEST_TIMEOUT',
    flag: 'request-timeout',
    parse: duration(1000),
    default: 30_000,
  },
  {
    key: 'keepAliveTimeoutMs',
    yamlPath: 'http.keepAliveTimeout',
    env: 'ZITI_HTTP_KEEP_ALIVE_TIMEOUT',
    flag: 'keep-alive-timeout',
    parse: duration(1000),
    default: 5_000,
  },
  {
    key: 'idleTimeoutMs',
    yamlPath: 'http.idleTimeout',
    env: 'ZITI_HTTP_IDLE_TIMEOUT',
    flag: 'idle-timeout',
    parse: duration(1000),
    default: 60_000,
  },
  {
    key: 'maxConnections',
    yamlPath: 'http.maxConnections',
    env: 'ZITI_HTTP_MAX_CONNECTIONS',
    flag: 'max-connections',
    parse: integer(1),
    default: 4096,
  },
  {
    key: 'maxConnectionsPerClient',
    yamlPath: 'http.maxConnectionsPerClient',
    env: 'ZITI_HTTP_MAX_CONNECTIONS_PER_CLIENT',
    flag: 'max-connections-per-client',
    parse: integer(1),
    default: 256,
  },
  {
    key: 'logLevel',
    yamlPath: 'log.level',
    env: 'ZITI_LOG_LEVEL',
    flag: 'log-level',
    parse: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
    default: 'info',
  },
  { key: 'accessLog', yamlPath: 'log.access', env: 'ZITI_ACCESS_LOG', flag: 'access-log', parse: flag, default: true },
  {
    key: 'metricsAddress',
    yamlPath: 'metrics.address',
    env: 'ZITI_METRICS_ADDRESS',
    flag: 'metrics-address',
    parse: listenAddress,
  },
  { key: 'controllerName', yamlPath: 'controller.name', env: 'ZITI_CONTROLLER_NAME', parse: text(1, 100) },
  { key: 'workers', yamlPath: 'workers', env: 'ZITI_WORKERS', flag: 'workers', parse: integer(1, 64), default: 1 },
  // Upstream's keys and limits (ziti controller/config/config.go, command.DefaultLimiterSize / MinLimiterSize).
  {
    key: 'commandRateLimiterEnabled',
    yamlPath: 'commandRateLimiter.enabled',
    env: 'ZITI_COMMAND_RATE_LIMITER_ENABLED',
    parse: flag,
    default: true,
  },
  {
    key: 'commandRateLimiterMaxQueued',
    yamlPath: 'commandRateLimiter.maxQueued',
    env: 'ZITI_COMMAND_RATE_LIMITER_MAX_QUEUED',
    parse: integer(10, 4_294_967_295),
    default: 100,
  },
  {
    key: 'shutdownTimeoutMs',
    yamlPath: 'shutdown.timeout',
    env: 'ZITI_SHUTDOWN_TIMEOUT',
    flag: 'shutdown-timeout',
    parse: duration(0, 10 * 60_000),
    default: 10_000,
  },
];

type NumberSetting = { [K in keyof Settings]: Settings[K] extends number ? K : never }[keyof Settings];

/** Rules between settings, checked once all are read; each message names both keys. */
export function checkSettingRelations(settings: Settings): void {
  const pathOf = (key: keyof Settings) => settingSpecs.find((spec) => spec.key === key)?.yamlPath ?? key;
  const atMost = (smaller: NumberSetting, larger: NumberSetting, what: (value: number) => string) => {
    const [a, b] = [settings[smaller], settings[larger]];
    if (a > b)
      throw new SettingsError(`[${pathOf(smaller)}] (${what(a)}) must not exceed [${pathOf(larger)}] (${what(b)})`);
  };
  // Node refuses a headers timeout longer than the request timeout it is part of.
  atMost('headersTimeoutMs', 'requestTimeoutMs', durationText);
  atMost('unauthenticatedBodyLimit', 'authenticatedBodyLimit', (bytes) => `${bytes} bytes`);
}
