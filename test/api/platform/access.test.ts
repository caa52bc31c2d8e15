import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadContract, type OperationSpec } from '../../../src/http/spec/load-spec.js';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { createUser, login } from '../../support/factories.js';
import { sampleRequest } from '../../support/sample-request.js';

/**
 * Who may call what, written here independently of the handlers' own declarations (docs/design.md part 0,
 * docs/reference/http-conventions.md §3.4): the contract's unsecured operations are public; on the management API
 * everything else is admin-only except the caller's own identity, session and MFA, and the controllers list;
 * on the client API every secured operation needs a session, and changing services needs an admin; the fabric API
 * is admin-only throughout (v1.1.8 `controller/server/fabric-api.go`), whatever its document declares.
 */
function expectedAccess(op: OperationSpec): 'public' | 'session' | 'admin' {
  if (op.api === 'fabric') return 'admin';
  if (op.isPublic) return 'public';
  if (op.api === 'management') {
    return /^\/(current-identity|current-api-session|authenticate\/mfa|controllers)(\/|$)/.test(op.path)
      ? 'session'
      : 'admin';
  }
  return op.path === '/services/{id}' && op.method !== 'GET' ? 'admin' : 'session';
}

type Caller = 'anonymous' | 'ordinary' | 'admin';

/**
 * Operations whose handler itself answers 401 to a caller that presents no client certificate in the handshake,
 * as upstream does (inject presents none): for them a permitted caller's 401 is that check, not the access rule.
 */
const needsClientCertificate = new Set(['extendCurrentIdentityAuthenticator', 'extendRouterEnrollment']);

describe('access rules for every bound operation', () => {
  let t: TestApp;
  const tokens: Record<Caller, string | undefined> = { anonymous: undefined, ordinary: undefined, admin: undefined };
  const operations = [
    ...loadContract('client').operations,
    ...loadContract('management').operations,
    ...loadContract('fabric').operations,
  ];

  before(async () => {
    t = await buildTestApp();
    tokens.admin = await t.loginAsAdmin();
    const user = await createUser(t, tokens.admin);
    tokens.ordinary = await login(t, user.username, user.password);
  });
  after(() => t.close());

  it('walks all 281 operations (242 edge, 2 extensions, 37 fabric) as anonymous, an ordinary identity and an admin', async () => {
    assert.equal(operations.length, 281);
    const problems: string[] = [];
    const unreachable: string[] = [];
    for (const op of operations) {
      // Logging out would end the session the rest of the walk uses.
      if (op.operationId === 'deleteCurrentApiSession') continue;
      const expected = expectedAccess(op);
      for (const caller of ['anonymous', 'ordinary', 'admin'] as const) {
        const request = sampleRequest(op);
        const token = tokens[caller];
        const result = await t.call({
          method: op.method,
          url: request.url,
          headers: request.headers,
          ...(token ? { token } : {}),
          ...(request.payload !== undefined ? { payload: request.payload } : {}),
        });
        const code = (result.body as { error?: { code?: string } } | undefined)?.error?.code;
        const refused = result.status === 401 && code === 'UNAUTHORIZED';
        const mayCall =
          expected === 'public' || (expected === 'session' && caller !== 'anonymous') || caller === 'admin';
        // A caller who may not call must meet the access check, so request validation must not stop it first.
        if (!mayCall && result.status === 400 && (code === 'COULD_NOT_VALIDATE' || code === 'COULD_NOT_PARSE_BODY')) {
          unreachable.push(`${op.api} ${op.operationId} as ${caller}: ${result.text.slice(0, 160)}`);
          continue;
        }
        if (mayCall && refused && needsClientCertificate.has(op.operationId)) continue;
        if (mayCall === refused)
          problems.push(
            `${op.api} ${op.method} ${op.path} as ${caller}: expected ${mayCall ? 'access' : '401 UNAUTHORIZED'}, got ${result.status} ${code ?? ''}`,
          );
      }
    }
    assert.deepEqual(problems, []);
    // Every sample request passes validation, so every access check above was really reached.
    assert.deepEqual(unreachable, []);
  });

  it('logs out any caller with a session', async () => {
    const user = await createUser(t, tokens.admin!);
    const token = await login(t, user.username, user.password);
    assert.equal(
      (await t.call({ method: 'DELETE', url: '/edge/management/v1/current-api-session', token })).status,
      200,
    );
    assert.equal((await t.call({ method: 'DELETE', url: '/edge/management/v1/current-api-session' })).status, 401);
  });
});
