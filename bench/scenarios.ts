// What the harness loads: each scenario is one request, repeated by autocannon against one of the two servers.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RequestVariants } from './load.js';
import { attributesFor, identityName } from './seed-identities.js';

/** `upstream`: the same scenario against upstream v1.1.8, for the ours ÷ upstream ratios. */
export type Target = 'hello' | 'controller' | 'upstream';

export interface Scenario {
  key: string;
  target: Target;
  method: 'GET' | 'POST';
  path: string;
  /** Whether the request carries a `zt-session` (the admin's, unless the scenario runs as another identity). */
  isAuthenticated: boolean;
  body?: string;
  /** A `RequestVariants` file (bench/load.ts): each request of the load sends the next token and body. */
  variantsFile?: string;
}

/** An identity and an attribute that exist at every seeding size (both come from the first seeded batch). */
export const QUERIED_NAME = identityName(42);
export const QUERIED_ATTRIBUTE = attributesFor(42)[0]!;

const listPath = (filter: string) => `/edge/management/v1/identities?filter=${encodeURIComponent(filter)}`;

export const ceiling: Scenario = {
  key: 'ceiling',
  target: 'hello',
  method: 'GET',
  path: '/hello',
  isAuthenticated: false,
};

export const currentIdentity: Scenario = {
  key: 'current-identity',
  target: 'controller',
  method: 'GET',
  path: '/edge/client/v1/current-identity',
  isAuthenticated: true,
};

export function passwordLogin(username: string, password: string): Scenario {
  return {
    key: 'password-login',
    target: 'controller',
    method: 'POST',
    path: '/edge/client/v1/authenticate?method=password',
    isAuthenticated: false,
    body: JSON.stringify({ username, password }),
  };
}

export const listByName: Scenario = {
  key: 'list-by-name',
  target: 'controller',
  method: 'GET',
  path: listPath(`name = "${QUERIED_NAME}"`),
  isAuthenticated: true,
};

/** Identities whose name or first attribute an `-each` load asks for in turn: more queries than the controller keeps answers for (256). */
const EACH_IDENTITIES = 1_000;

/**
 * A list filtered on one of the first `EACH_IDENTITIES` seeded identities' values, another each request: what a
 * first read of a query costs, where list-by-name and list-by-attribute repeat one query (whose answer is kept
 * until the next write). The variants go to `dir`.
 */
function listEach(dir: string, key: string, seeded: number, filterOf: (index: number) => string): Scenario {
  const paths = Array.from({ length: Math.max(1, Math.min(EACH_IDENTITIES, seeded)) }, (_, index) =>
    listPath(filterOf(index)),
  );
  const variantsFile = join(dir, `${key}.json`);
  writeFileSync(variantsFile, JSON.stringify({ paths } satisfies RequestVariants));
  return { key, target: 'controller', method: 'GET', path: paths[0]!, isAuthenticated: true, variantsFile };
}

export const listByNameEach = (dir: string, seeded: number): Scenario =>
  listEach(dir, 'list-by-name-each', seeded, (index) => `name = "${identityName(index)}"`);

export const listByAttributeEach = (dir: string, seeded: number): Scenario =>
  listEach(dir, 'list-by-attribute-each', seeded, (index) => `anyOf(roleAttributes) = "${attributesFor(index)[0]!}"`);

export const listByAttribute: Scenario = {
  key: 'list-by-attribute',
  target: 'controller',
  method: 'GET',
  path: listPath(`anyOf(roleAttributes) = "${QUERIED_ATTRIBUTE}"`),
  isAuthenticated: true,
};

/** The client's service list as an SDK reads it, one page of 500; the token decides whose list it is. */
export const clientServices = (who: 'typical' | 'heavy'): Scenario => ({
  key: `client-services-${who}`,
  target: 'controller',
  method: 'GET',
  path: '/edge/client/v1/services?limit=500',
  isAuthenticated: true,
});

/** What SDKs poll to learn that their service list changed. */
export const serviceUpdates: Scenario = {
  key: 'service-updates',
  target: 'controller',
  method: 'GET',
  path: '/edge/client/v1/current-api-session/service-updates',
  isAuthenticated: true,
};

export function requestHeaders(scenario: Scenario, token: string): Record<string, string> {
  return {
    accept: 'application/json',
    ...(scenario.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(scenario.isAuthenticated ? { 'zt-session': token } : {}),
  };
}
