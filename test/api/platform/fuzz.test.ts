// Every operation of the three APIs, as admin, as an ordinary identity and anonymously, with generated hostile input
// (seeded, so every run sends the same requests): never a 5xx other than a declared 501, always the error
// envelope, and the controller still answers /version afterwards.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadContract, type OperationSpec } from '../../../src/http/spec/load-spec.js';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import {
  createEdgeRouter,
  createEntity,
  createIdentity,
  createService,
  createTransitRouter,
  createUser,
  login,
} from '../../support/factories.js';
import { hostileRequests, seededRandom, type HostileRequest } from '../../support/hostile-requests.js';
import { isEmptyPemReply } from '../../support/conformance.js';

const SEED = Number(process.env.FUZZ_SEED ?? 9_09_2024);
/** Requests per operation and caller: 281 operations (242 edge, 2 extensions, 37 fabric) × 3 callers × this. FUZZ_SEED and FUZZ_REQUESTS explore further. */
const REQUESTS_PER_OPERATION = Number(process.env.FUZZ_REQUESTS ?? 6);

/** Deletes last, so the known entities stay for the other operations as long as possible. */
const operations = [
  ...loadContract('client').operations,
  ...loadContract('management').operations,
  ...loadContract('fabric').operations,
].sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));

interface Caller {
  name: string;
  token?: string;
}

interface Failure {
  caller: string;
  request: HostileRequest;
  status: number;
  body: string;
}

/** A path with a percent sign that starts no escape: Go refuses the request line with a plain 400, as we do. */
const UNDECODABLE_PATH = /^[^?]*%(?![0-9a-fA-F]{2})/;

/**
 * What a reply may be: below 500, or the 501 an operation declares; errors always in the error envelope, but for
 * an undecodable path.
 */
function problemWith(
  op: OperationSpec,
  url: string,
  accept: string | undefined,
  status: number,
  contentType: string,
  body: string,
): string | undefined {
  if (status >= 500 && !(status === 501 && op.responseStatuses.includes(501))) return 'a 5xx';
  if (status < 400 || isEmptyPemReply(op, accept, status, contentType, body)) return undefined;
  if (UNDECODABLE_PATH.test(url))
    return status === 400 && body === '400 Bad Request' ? undefined : 'an undecodable path not refused as Go does';
  if (contentType !== 'application/json') return `an error with content type ${contentType}`;
  const envelope = JSON.parse(body) as { error?: { code?: unknown; requestId?: unknown } };
  if (typeof envelope.error?.code !== 'string' || typeof envelope.error.requestId !== 'string')
    return 'an error without the envelope';
  if (status === 501 && envelope.error.code !== 'NOT_IMPLEMENTED') return 'a 501 that is not NOT_IMPLEMENTED';
  return undefined;
}

const headersAccept = (headers: Record<string, string>) =>
  Object.entries(headers).find(([name]) => name.toLowerCase() === 'accept')?.[1];

describe('fuzz: hostile input on every operation', () => {
  let t: TestApp;
  let callers: Caller[];
  const known = new Map<string, string>();

  before(async () => {
    t = await buildTestApp();
    const admin = await t.loginAsAdmin();
    const user = await createUser(t, admin);
    callers = [
      { name: 'admin', token: admin },
      { name: 'identity', token: await login(t, user.username, user.password) },
      { name: 'anonymous' },
    ];
    // Real ids for the path, so hostile bodies also reach the entities' rules rather than only their 404.
    const spare = await createUser(t, admin);
    const configType = await createEntity(t, admin, 'config-types', { name: 'fuzz-type' });
    const service = await createService(t, admin);
    known.set('identities', spare.id);
    known.set('authenticators', spare.authenticatorId);
    known.set('current-identity', user.authenticatorId);
    known.set('services', service);
    known.set('config-types', configType);
    known.set(
      'configs',
      await createEntity(t, admin, 'configs', { name: 'fuzz-config', configTypeId: configType, data: {} }),
    );
    known.set('edge-routers', await createEdgeRouter(t, admin));
    known.set('transit-routers', await createTransitRouter(t, admin));
    known.set(
      'service-policies',
      await createEntity(t, admin, 'service-policies', { name: 'fuzz-sp', type: 'Dial', semantic: 'AnyOf' }),
    );
    known.set(
      'edge-router-policies',
      await createEntity(t, admin, 'edge-router-policies', { name: 'fuzz-erp', semantic: 'AnyOf' }),
    );
    known.set(
      'service-edge-router-policies',
      await createEntity(t, admin, 'service-edge-router-policies', { name: 'fuzz-serp', semantic: 'AnyOf' }),
    );
    known.set('posture-checks', await createEntity(t, admin, 'posture-checks', { name: 'fuzz-pc', typeId: 'MFA' }));
    known.set('auth-policies', 'default');
    known.set('identity-types', 'User');
    known.set('specs', 'edge-client');
    await createIdentity(t, admin, { name: 'fuzz-other' });
  });
  after(() => t.close());

  it(
    'never answers 5xx (but declared 501s), always with the error envelope, and keeps answering',
    { timeout: 120_000 },
    async () => {
      const random = seededRandom(SEED);
      const failures: Failure[] = [];
      let sent = 0;
      for (const op of operations) {
        for (const caller of callers) {
          // Ending its own session would leave the rest of the run anonymous.
          if (caller.token && op.operationId === 'deleteCurrentApiSession') continue;
          for (const request of hostileRequests(op, random, REQUESTS_PER_OPERATION, known)) {
            const headers = { ...request.headers, ...(caller.token ? { 'zt-session': caller.token } : {}) };
            const response = await t.app.inject({
              method: request.method,
              url: request.url,
              headers,
              ...(request.payload === undefined ? {} : { payload: request.payload }),
            });
            sent++;
            const problem = problemWith(
              op,
              request.url,
              headersAccept(headers),
              response.statusCode,
              String(response.headers['content-type'] ?? ''),
              response.body,
            );
            if (problem)
              failures.push({
                caller: `${caller.name}: ${problem}`,
                request,
                status: response.statusCode,
                body: response.body.slice(0, 300),
              });
          }
        }
      }
      const report = failures
        .slice(0, 15)
        .map(
          (f) =>
            `${f.caller} ← ${f.request.method} ${f.request.url.slice(0, 120)} [${f.request.what.slice(0, 120)}] → ${f.status} ${f.body}`,
        );
      assert.deepEqual(report, [], `${failures.length} of ${sent} replies (seed ${SEED})`);

      const version = await t.call({ method: 'GET', url: '/edge/client/v1/version' });
      assert.equal(version.status, 200);
    },
  );
});
