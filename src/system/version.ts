// The version document (`/`, `/version`, `<base>/version`), computed once per app.
import type { AppDeps } from '../app-deps.js';
import { envelope } from '../http/envelope.js';
import type { OperationHandler } from '../http/operation.js';

export const API_BASES = { 'edge-client': '/edge/client/v1', 'edge-management': '/edge/management/v1' } as const;

/** No optional capability (OIDC_AUTH, HA_CONTROLLER) is implemented, so none is advertised. */
export const capabilities: string[] = [];

type VersionDeps = Pick<AppDeps, 'settings' | 'build'>;

const cache = new WeakMap<VersionDeps, unknown>();

function versionDocument(deps: VersionDeps): unknown {
  const { advertisedHost, advertisedPort } = deps.settings;
  const host = advertisedHost.includes(':') ? `[${advertisedHost}]` : advertisedHost;
  const api = (path: string) => ({ v1: { apiBaseUrls: [`https://${host}:${advertisedPort}${path}`], path } });
  return {
    apiVersions: {
      // The C SDK reads the legacy `edge` key, a copy of `edge-client`.
      edge: api(API_BASES['edge-client']),
      'edge-client': api(API_BASES['edge-client']),
      'edge-management': api(API_BASES['edge-management']),
    },
    buildDate: deps.build.buildDate,
    capabilities,
    revision: deps.build.revision,
    runtimeVersion: process.version,
    // Upstream's version, which clients compare against; ours is in the `server` header and the banner.
    version: deps.build.wireVersion,
  };
}

export const listVersion: OperationHandler = {
  access: 'public',
  handle({ deps }) {
    let data = cache.get(deps);
    if (data === undefined) cache.set(deps, (data = versionDocument(deps)));
    return Promise.resolve({ status: 200, json: envelope(data) });
  },
};
