// The router control plane (issue 22): where routers connect and how their channels are kept alive, with upstream
// quickstart's environment names.
import { duration, host, port, type SettingSpec } from './setting-spec.js';

export interface ControlPlaneSettings {
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
}

export const controlPlaneSettingSpecs: readonly SettingSpec<ControlPlaneSettings>[] = [
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
];
