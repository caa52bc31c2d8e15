// How the controller runs: its logs and metrics, its name, its worker processes, the queue model changes wait in,
// and how it stops.
import {
  duration,
  flag,
  integer,
  listenAddress,
  oneOf,
  text,
  type ListenAddress,
  type SettingSpec,
} from './setting-spec.js';

export interface ProcessSettings {
  logLevel: string;
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
}

export const processSettingSpecs: readonly SettingSpec<ProcessSettings>[] = [
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
