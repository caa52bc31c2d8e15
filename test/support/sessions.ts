// Fixtures for session tests: an edge router open to everyone, services an identity may dial or bind, and the
// client's session calls as SDKs send them.
import assert from 'node:assert/strict';
import type { TestApp } from './test-app.js';
import type { CallResult } from './conformance.js';
import { createEdgeRouter, createEntity, createService } from './factories.js';
import { CLIENT as client } from './api-paths.js';

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 7)}`;

/**
 * An edge router the identities of `identityRoles` may use (edge router policy) and that carries every service
 * (service edge router policy).
 */
export async function openEdgeRouter(t: TestApp, admin: string, identityRoles = ['#all']): Promise<string> {
  const router = await createEdgeRouter(t, admin);
  await createEntity(t, admin, 'edge-router-policies', {
    name: unique('erp'),
    semantic: 'AnyOf',
    identityRoles,
    edgeRouterRoles: [`@${router}`],
  });
  await createEntity(t, admin, 'service-edge-router-policies', {
    name: unique('serp'),
    semantic: 'AnyOf',
    serviceRoles: ['#all'],
    edgeRouterRoles: [`@${router}`],
  });
  return router;
}

export interface GrantedService {
  serviceId: string;
  /** Policy id by type. */
  policies: Partial<Record<'Dial' | 'Bind', string>>;
}

/** A new service the identity may use in the given ways, one service policy per type (with posture check roles). */
export async function grantService(
  t: TestApp,
  admin: string,
  identityId: string,
  types: readonly ('Dial' | 'Bind')[],
  postureCheckRoles: string[] = [],
): Promise<GrantedService> {
  const serviceId = await createService(t, admin);
  const policies: GrantedService['policies'] = {};
  for (const type of types) {
    policies[type] = await createEntity(t, admin, 'service-policies', {
      name: unique(`sp-${type}`),
      type,
      semantic: 'AnyOf',
      identityRoles: [`@${identityId}`],
      serviceRoles: [`@${serviceId}`],
      postureCheckRoles,
    });
  }
  return { serviceId, policies };
}

/** `POST /sessions` with the body the C SDK sends. */
export const requestSession = (t: TestApp, token: string, serviceId: string, type?: string): Promise<CallResult> =>
  t.call({
    method: 'POST',
    url: `${client}/sessions`,
    token,
    payload: { serviceId, ...(type !== undefined ? { type } : {}) },
  });

export interface SessionBody {
  id: string;
  token: string;
  type: string;
  serviceId: string;
  identityId: string;
  apiSessionId: string;
  edgeRouters: {
    name: string;
    hostname: string;
    supportedProtocols: Record<string, string>;
    urls: Record<string, string>;
  }[];
  servicePolicies?: { id: string; name: string }[];
}

export async function createSession(t: TestApp, token: string, serviceId: string, type?: string): Promise<SessionBody> {
  const result = await requestSession(t, token, serviceId, type);
  assert.equal(result.status, 201, result.text);
  return (result.body as { data: SessionBody }).data;
}

/** The ids of the sessions the caller can list (admins: all of them). */
export async function sessionIds(
  t: TestApp,
  token: string,
  api: 'client' | 'management' = 'client',
  query = '',
): Promise<string[]> {
  const result = await t.call({ method: 'GET', url: `/edge/${api}/v1/sessions?limit=-1${query}`, token });
  assert.equal(result.status, 200, result.text);
  return (result.body as { data: { id: string }[] }).data.map((s) => s.id).sort();
}
