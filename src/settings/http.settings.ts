// What one HTTP connection and request may take: body sizes, timeouts and connection counts (docs/operating.md,
// "Limits").
import { byteSize, duration, integer, type SettingSpec } from './setting-spec.js';

export interface HttpSettings {
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
  /** Connections of one client address in their TLS handshake or before their first completed request, at most. */
  maxPendingConnectionsPerClient: number;
  /** Connections of one client address that may wait, unread, for one of its pending ones to finish. */
  maxWaitingConnectionsPerClient: number;
}

export const httpSettingSpecs: readonly SettingSpec<HttpSettings>[] = [
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
  // Many clients share an address behind a NAT: an address is capped by the connections it has not yet made use of,
  // and a burst over that cap waits its turn rather than being refused (client-admission.ts).
  {
    key: 'maxPendingConnectionsPerClient',
    yamlPath: 'http.maxPendingConnectionsPerClient',
    env: 'ZITI_HTTP_MAX_PENDING_CONNECTIONS_PER_CLIENT',
    flag: 'max-pending-connections-per-client',
    parse: integer(1),
    default: 256,
  },
  {
    key: 'maxWaitingConnectionsPerClient',
    yamlPath: 'http.maxWaitingConnectionsPerClient',
    env: 'ZITI_HTTP_MAX_WAITING_CONNECTIONS_PER_CLIENT',
    flag: 'max-waiting-connections-per-client',
    parse: integer(0),
    default: 1024,
  },
];
