// What buildApp receives: everything handlers may use, passed in rather than read from module state.
// It lives at the top because it names pieces of every layer; lower layers import only its type.
import type { Logger } from 'pino';
import type { ApiSessions } from './auth/api-sessions.js';
import type { Clock } from './lib/clock.js';
import type { IdGenerators } from './lib/ids.js';
import type { Pki } from './pki/ensure-pki.js';
import type { PostureMonitor } from './posture/posture-monitor.js';
import type { Settings } from './settings/settings.schema.js';
import type { Store } from './store/store.js';

export interface BuildInfo {
  version: string;
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
  /** API session lookup (turns a `zt-session` token into the caller) and activity tracking. */
  apiSessions: ApiSessions;
  /** Clients' posture reports (in memory) and the upkeep that drops sessions whose posture stops passing. */
  posture: PostureMonitor;
}
