// Upstream settings whose meaning here lives at another path or in another form (docs/reference/
// upstream-migration.md §d): each move takes upstream's value and sets ours, or answers false when it cannot use
// the value (the key is then listed as ignored).
import { isJsonObject } from '../lib/object-path.js';

type SetSetting = (path: string, value: unknown) => void;
type Move = (value: unknown, set: SetSetting) => boolean;

/** `host:port`, `[v6]:port`, optionally after a `tls:` protocol; undefined for anything else. */
export function splitAddress(value: unknown): { host: string; port: number } | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(?:tls:)?(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value.trim());
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  return host !== undefined && port >= 1 && port <= 65535 ? { host, port } : undefined;
}

/** Upstream's `edge.api.address`: what SDKs are told (enrollment JWTs, the controller list). */
const advertisedApi: Move = (value, set) => {
  const address = splitAddress(value);
  if (!address) return false;
  set('edge.api.advertisedHost', address.host);
  set('edge.api.advertisedPort', address.port);
  return true;
};

/** `web`: one listener here; its first bind point's interface is where it listens (the port is the advertised). */
const webListener: Move = (value, set) => {
  const first: unknown = Array.isArray(value) ? value[0] : undefined;
  const bindPoints: unknown = isJsonObject(first) ? first.bindPoints : undefined;
  const point: unknown = Array.isArray(bindPoints) ? bindPoints[0] : undefined;
  const bind = isJsonObject(point) ? splitAddress(point.interface) : undefined;
  if (!bind) return false;
  set('edge.api.bindAddress', bind.host);
  set('edge.api.advertisedPort', bind.port);
  const options = isJsonObject(first) ? first.options : undefined;
  if (isJsonObject(options) && typeof options.idleTimeout === 'string') set('http.idleTimeout', options.idleTimeout);
  return true;
};

export const upstreamKeyMoves: Readonly<Record<string, Move>> = {
  // The format version: read, nothing to set.
  v: (value) => value === 3,
  web: webListener,
  'edge.api.address': advertisedApi,
  'ctrl.listener': (value, set) => {
    const address = splitAddress(value);
    if (!address) return false;
    set('ctrl.bindAddress', address.host);
    set('ctrl.advertisedPort', address.port);
    return true;
  },
  'ctrl.options.advertiseAddress': (value, set) => {
    const address = splitAddress(value);
    if (!address) return false;
    set('ctrl.advertisedAddress', address.host);
    set('ctrl.advertisedPort', address.port);
    return true;
  },
  'ctrl.options.connectTimeoutMs': (value, set) => {
    if (typeof value !== 'number') return false;
    set('ctrl.options.connectTimeout', `${value}ms`);
    return true;
  },
  'ctrl.options.routerHeartbeats.sendInterval': (value, set) => {
    set('ctrl.heartbeats.sendInterval', value);
    return true;
  },
  'ctrl.options.routerHeartbeats.closeUnresponsiveTimeout': (value, set) => {
    set('ctrl.heartbeats.closeUnresponsiveTimeout', value);
    return true;
  },
};
