// Failed logins are counted per username, per source address and per both, within a window; past a limit, 429.
import { duration, integer, type SettingSpec } from './setting-spec.js';

export interface LoginThrottleSettings {
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
}

export const loginThrottleSettingSpecs: readonly SettingSpec<LoginThrottleSettings>[] = [
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
];
