// The Edge APIs: the address they listen on and advertise, API sessions, the default admin and MFA's issuer.
import { duration, host, port, text, type SettingSpec } from './setting-spec.js';

export interface EdgeApiSettings {
  advertisedHost: string;
  advertisedPort: number;
  bindAddress: string;
  sessionTimeoutMs: number;
  adminUsername: string;
  /** Undefined means "generate one on first start". */
  adminPassword: string | undefined;
  /** The issuer named in TOTP provisioning URLs (what authenticator apps show). */
  totpIssuer: string;
}

export const edgeApiSettingSpecs: readonly SettingSpec<EdgeApiSettings>[] = [
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
];
