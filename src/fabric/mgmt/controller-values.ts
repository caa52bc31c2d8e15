// What the controller answers for itself to an inspection (upstream Network.Inspect): `stackdump`, `config` and
// `connected-routers`. Other names upstream answers only in a raft cluster (`cluster-config`, `connected-peers`) or
// from state we keep elsewhere (`metrics`, `router-messaging`) get no value here, as upstream gives none for a name it
// does not know; the routers answer their own names (`links`, `sdk-terminators`, `router-controllers`, …).
import { formatTimestamp, type Clock } from '../../lib/clock.js';
import { goRfc3339 } from '../../lib/go-format.js';
import { settingSpecs, type Settings } from '../../settings/settings.schema.js';
import { connectedRouters } from '../../store/queries/router-presence.js';
import type { Store } from '../../store/store.js';
import type { FabricMetrics } from '../ctrl/fabric-metrics.js';
import { metricsMessageJson } from './controller-metrics.js';

export interface ControllerValuesDeps {
  settings: Settings;
  /** The controller's own id (its metrics' sourceId). */
  controllerId: string;
  /** The controller's metrics registry, when it keeps one (`metrics.address` is set). */
  metrics: Pick<FabricMetrics, 'snapshot'> | undefined;
  store: Store;
  clock: Clock;
  /** An instance not seen for this long holds no router any more. */
  instanceOfflineAfterMs: number;
}

/** Settings never shown, by YAML path: the default admin's password. */
const HIDDEN = new Set(['admin.password']);

export function controllerValues(deps: ControllerValuesDeps): (name: string) => Promise<string | undefined> {
  return async (name) => {
    if (name === 'stackdump') return stackdump();
    if (name === 'config') return renderConfig(deps.settings);
    if (name === 'connected-routers') return listConnectedRouters(deps);
    if (name.startsWith('metrics') && deps.metrics)
      return metricsMessageJson(await deps.metrics.snapshot(), deps.controllerId, deps.clock());
    return undefined;
  };
}

/**
 * Upstream's is every goroutine's stack; a Node process has one JavaScript thread, so this is its diagnostic
 * report's stack and the libuv handles keeping it busy (no environment: it may hold secrets).
 */
function stackdump(): string {
  const report = process.report.getReport() as unknown as NodeReport;
  const lines = [
    `pid ${process.pid}, node ${process.version}, up ${Math.round(process.uptime())} s`,
    '',
    'JavaScript stack:',
    ...(report.javascriptStack?.stack ?? []).map((frame) => `  ${frame.trim()}`),
    '',
    'libuv handles:',
    ...(report.libuv ?? []).map(
      (handle) => `  ${handle.type}${handle.is_active ? ' (active)' : ''}${handle.address ? ` ${handle.address}` : ''}`,
    ),
  ];
  return lines.join('\n');
}

/** The part of process.report's JSON read here (Node types it as object). */
interface NodeReport {
  javascriptStack?: { message?: string; stack?: string[] };
  libuv?: { type: string; is_active?: boolean; address?: string }[];
}

/** The settings as their YAML paths nest them; the database URL without its password, the admin password left out. */
function renderConfig(settings: Settings): string {
  const config: Record<string, unknown> = { home: settings.home, configFile: settings.configFile ?? null };
  for (const spec of settingSpecs) {
    if (HIDDEN.has(spec.yamlPath)) continue;
    let value: unknown = settings[spec.key];
    if (spec.key === 'databaseUrl' && typeof value === 'string') value = withoutPassword(value);
    if (value === undefined) continue;
    const path = spec.yamlPath.split('.');
    let at = config;
    for (const part of path.slice(0, -1)) {
      const next = at[part];
      at = typeof next === 'object' && next !== null ? (next as Record<string, unknown>) : (at[part] = {});
    }
    at[path[path.length - 1]!] = value;
  }
  return JSON.stringify(config);
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = 'xxxxx';
    return parsed.toString();
  } catch {
    return 'xxxxx';
  }
}

/** Upstream's list of maps: Go writes a map's keys sorted, an empty list as null, times as RFC 3339 seconds. */
async function listConnectedRouters(deps: ControllerValuesDeps): Promise<string> {
  const since = formatTimestamp(new Date(deps.clock().getTime() - deps.instanceOfflineAfterMs));
  const routers = await deps.store.read((db) => connectedRouters(db, since));
  if (routers.length === 0) return 'null';
  return JSON.stringify(
    routers.map((router) => ({
      ConnectTime: router.connectedAt ? rfc3339(router.connectedAt) : '',
      Id: router.id,
      Name: router.name,
      Version: versionOf(router.versionInfo),
    })),
  );
}

function rfc3339(timestamp: string): string {
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime()) ? timestamp : goRfc3339(date);
}

function versionOf(versionInfo: string | null): string {
  if (!versionInfo) return '';
  try {
    const parsed: unknown = JSON.parse(versionInfo);
    return typeof parsed === 'object' && parsed !== null && 'version' in parsed && typeof parsed.version === 'string'
      ? parsed.version
      : '';
  } catch {
    return '';
  }
}
