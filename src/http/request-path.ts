// Where a request path lands, as upstream decides it: the API handlers' prefix rewrites (ziti
// controller/server/client-api.go, management-api.go), then go-openapi's router, which looks routes up by the
// cleaned path (path.Clean): `/x/` ≡ `/x`, `//` collapses, `.` and `..` resolve.
import { posix } from 'node:path';

export const CLIENT_BASE = '/edge/client/v1';
export const MANAGEMENT_BASE = '/edge/management/v1';
const LEGACY_CLIENT_BASE = '/edge/v1';

/**
 * Upstream's rewrites before routing. The management API claims every path that starts with its prefix (a plain
 * string prefix, as its IsHandler); everything else goes to the client API, which serves old SDKs' `/edge/v1/...`
 * and un-prefixed paths (so `/` is the client's root, the version document), and the CA bundle at the root.
 */
export function rewritePath(path: string): string {
  if (path.startsWith(MANAGEMENT_BASE)) return path;
  // Liveness and readiness (system/health.ts) are this controller's own, outside both APIs.
  if (path === '/health' || path === '/ready') return path;
  if (path === '/.well-known/est/cacerts') return `${CLIENT_BASE}${path}`;
  if (!/^\/(edge|fabric|\.well-known)/.test(path)) return `${CLIENT_BASE}${path}`;
  if (path.startsWith(LEGACY_CLIENT_BASE)) return `${CLIENT_BASE}${path.slice(LEGACY_CLIENT_BASE.length)}`;
  return path;
}

/** Go's path.Clean for a rooted path: no repeated or trailing slashes, `.` and `..` resolved. */
export function cleanPath(path: string): string {
  // Already clean (every well-formed request): nothing to collapse, resolve or trim.
  if (path !== '' && !path.includes('//') && !path.includes('/.') && (path.length === 1 || !path.endsWith('/')))
    return path;
  const normal = posix.normalize(path);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

/**
 * The path a request is routed by. Cleaning happens inside the API that claimed the raw path, so a path that
 * cleaning would move into another API or out of both (`/edge/management/v1/../client/v1/version`) stays as it
 * is and finds no route, as upstream.
 */
export function routedPath(rawPath: string): string {
  const path = rewritePath(rawPath);
  const base = path.startsWith(MANAGEMENT_BASE) ? MANAGEMENT_BASE : CLIENT_BASE;
  const cleaned = cleanPath(path);
  return cleaned === base || cleaned.startsWith(`${base}/`) ? cleaned : path;
}

/** `routedPath` of a request URL, its query string kept. */
export function routedUrl(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? routedPath(url) : `${routedPath(url.slice(0, queryAt))}${url.slice(queryAt)}`;
}
