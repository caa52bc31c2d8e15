// What buildApp receives: everything handlers may use, passed in rather than read from module state.
// It lives at the top because it names pieces of every layer; lower layers import only its type.
import type { Logger } from 'pino';
import type { ApiSessions } from './auth/api-sessions.js';
import type { ExternalJwtVerifier } from './auth/ext-jwt/ext-jwt-verifier.js';
import type { LoginThrottle } from './auth/login-throttle.js';
import type { IntegrityScans } from './integrity/integrity-status.js';
import type { Snapshots } from './integrity/snapshots.js';
import type { NetworkViews } from './fabric/network-views.js';
import type { Inspections } from './fabric/mgmt/inspections.js';
import type { Health } from './system/health.js';
import type { InstanceHeartbeat } from './system/instance-heartbeat.js';
import type { Metrics } from './system/metrics.js';
import type { Clock } from './lib/clock.js';
import type { IdGenerators } from './lib/ids.js';
import type { Pki } from './pki/ensure-pki.js';
import type { PostureMonitor } from './posture/posture-monitor.js';
import type { Settings } from './settings/settings.schema.js';
import type { Store } from './store/store.js';

export interface BuildInfo {
  /** This controller's own version (banner, logs, the `server` header). */
  version: string;
  /**
   * The version routers and SDKs read (`GET /version`, the control hello): upstream's, since clients gate behaviour
   * on it (a v1.1.8 router treats a controller below 0.30.0 as legacy: router/link/link_registry.go).
   */
  wireVersion: string;
  revision: string;
  /** `YYYY-MM-DD hh:mm:ss`, as upstream's version document writes it. */
  buildDate: string;
}

export interface AppDeps {
  settings: Settings;
  store: Store;
  clock: Clock;
  ids: IdGenerators;
  pki: Pki;
  logger: Logger;
  build: BuildInfo;
  /** A cuid made once per process start; clients watch it to notice a controller restart. */
  instanceId: string;
  /** The controller network's id, the same on every instance sharing the database and across restarts. */
  clusterId: string;
  /** API session lookup (turns a `zt-session` token into the caller) and activity tracking. */
  apiSessions: ApiSessions;
  /** Failed-login counting and throttling, shared by every login path. */
  loginThrottle: LoginThrottle;
  /** Verification of external JWTs (ext-jwt logins and secondary factors), with each signer's keys cached. */
  externalJwts: ExternalJwtVerifier;
  /** Data integrity scans (check / fix) and their last results. */
  integrityChecks: IntegrityScans;
  snapshots: Snapshots;
  /** This instance's row among the instances on the database (`GET /controllers`). */
  heartbeat: InstanceHeartbeat;
  /** Readiness (store, migrations, shutdown) for `/ready`. */
  health: Health;
  /** Present when a metrics address is configured; nothing is measured otherwise. */
  metrics: Metrics | undefined;
  /** Clients' posture reports (in memory) and the upkeep that drops sessions whose posture stops passing. */
  posture: PostureMonitor;
  /** The routers' links and the circuits over them, as the fabric API shows them; absent: none (emptyNetwork). */
  network?: NetworkViews;
  /** The controller's and its routers' inspections (`POST /fabric/v1/inspections`); absent: refused. */
  inspections?: Pick<Inspections, 'inspect'>;
}

/**
 * What the entity kit hands to entity rules and read mappings (crud/entity-rules.ts), and so what its writes need:
 * the rest of AppDeps (logins, scans, metrics, the network) is for handlers and the composition root.
 */
export type EntityDeps = Pick<AppDeps, 'store' | 'clock' | 'ids' | 'pki' | 'settings' | 'posture' | 'apiSessions'>;
