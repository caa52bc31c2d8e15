// Fixtures made through the API, as a client would make them (cf. ziti's requireNewIdentity).
import assert from 'node:assert/strict';
import type { TestApp } from './test-app.js';

export interface UserFixture {
  id: string;
  username: string;
  password: string;
  authenticatorId: string;
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 7)}`;

export async function createIdentity(
  t: TestApp,
  adminToken: string,
  body: Record<string, unknown> = {},
): Promise<string> {
  const result = await t.call({
    method: 'POST',
    url: '/edge/management/v1/identities',
    token: adminToken,
    payload: { name: unique('identity'), type: 'User', isAdmin: false, ...body },
  });
  assert.equal(result.status, 201, result.text);
  return (result.body as { data: { id: string } }).data.id;
}

/** An identity with a password authenticator, ready to log in. */
export async function createUser(
  t: TestApp,
  adminToken: string,
  body: Record<string, unknown> = {},
): Promise<UserFixture> {
  const id = await createIdentity(t, adminToken, body);
  const username = unique('user');
  const password = `pw-${username}`;
  const result = await t.call({
    method: 'POST',
    url: '/edge/management/v1/authenticators',
    token: adminToken,
    payload: { method: 'updb', identityId: id, username, password },
  });
  assert.equal(result.status, 201, result.text);
  return { id, username, password, authenticatorId: (result.body as { data: { id: string } }).data.id };
}

export async function login(
  t: TestApp,
  username: string,
  password: string,
  api: 'client' | 'management' = 'client',
): Promise<string> {
  const result = await t.call({
    method: 'POST',
    url: `/edge/${api}/v1/authenticate?method=password`,
    payload: { username, password },
  });
  assert.equal(result.status, 200, result.text);
  return (result.body as { data: { token: string } }).data.token;
}

/** Creates any entity through its management collection and returns the new id. */
export async function createEntity(
  t: TestApp,
  adminToken: string,
  collection: string,
  body: Record<string, unknown>,
): Promise<string> {
  const result = await t.call({
    method: 'POST',
    url: `/edge/management/v1/${collection}`,
    token: adminToken,
    payload: body,
  });
  assert.equal(result.status, 201, result.text);
  return (result.body as { data: { id: string } }).data.id;
}

/** Reads any entity back through its management detail, as the console does after each save. */
export async function readEntity(
  t: TestApp,
  adminToken: string,
  collection: string,
  id: string,
): Promise<Record<string, unknown>> {
  const result = await t.call({ method: 'GET', url: `/edge/management/v1/${collection}/${id}`, token: adminToken });
  assert.equal(result.status, 200, result.text);
  return (result.body as { data: Record<string, unknown> }).data;
}

export const createService = (t: TestApp, token: string, body: Record<string, unknown> = {}) =>
  createEntity(t, token, 'services', { name: unique('service'), encryptionRequired: true, ...body });

export const createEdgeRouter = (t: TestApp, token: string, body: Record<string, unknown> = {}) =>
  createEntity(t, token, 'edge-routers', { name: unique('edge-router'), ...body });

export const createTransitRouter = (t: TestApp, token: string, body: Record<string, unknown> = {}) =>
  createEntity(t, token, 'transit-routers', { name: unique('router'), ...body });

/** A terminator of `service` on `router`: a transport binding to a TCP address unless `body` says otherwise. */
export const createTerminator = (
  t: TestApp,
  token: string,
  service: string,
  router: string,
  body: Record<string, unknown> = {},
) =>
  createEntity(t, token, 'terminators', { service, router, binding: 'transport', address: 'tcp:localhost:1', ...body });

export interface AuthPolicyOverrides {
  name?: string;
  cert?: Partial<{ allowed: boolean; allowExpiredCerts: boolean }>;
  updb?: Partial<{
    allowed: boolean;
    minPasswordLength: number;
    requireSpecialChar: boolean;
    requireNumberChar: boolean;
    requireMixedCase: boolean;
    maxAttempts: number;
    lockoutDurationMinutes: number;
  }>;
  extJwt?: Partial<{ allowed: boolean; allowedSigners: string[] }>;
  secondary?: Partial<{ requireTotp: boolean; requireExtJwtSigner: string | null }>;
}

/** A complete auth policy body (the contract requires every inner field), permissive unless overridden. */
export function authPolicyBody(overrides: AuthPolicyOverrides = {}) {
  return {
    name: overrides.name ?? unique('auth-policy'),
    primary: {
      cert: { allowed: true, allowExpiredCerts: true, ...overrides.cert },
      updb: {
        allowed: true,
        minPasswordLength: 5,
        requireSpecialChar: false,
        requireNumberChar: false,
        requireMixedCase: false,
        maxAttempts: 0,
        lockoutDurationMinutes: 0,
        ...overrides.updb,
      },
      extJwt: { allowed: true, allowedSigners: [] as string[], ...overrides.extJwt },
    },
    secondary: { requireTotp: false, requireExtJwtSigner: null as string | null, ...overrides.secondary },
  };
}

export const createAuthPolicy = (t: TestApp, token: string, overrides: AuthPolicyOverrides = {}) =>
  createEntity(t, token, 'auth-policies', authPolicyBody(overrides));
