import 'reflect-metadata';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Pkcs10CertificateRequestGenerator } from '@peculiar/x509';
import { decodeJwt } from 'jose';
import { buildTestApp, type TestApp, testTime } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createEdgeRouter, createIdentity, createTransitRouter, createUser, login } from '../../support/factories.js';
import { insertRows } from '../../../src/store/queries/table-rows.js';
import { MANAGEMENT as API } from '../../support/api-paths.js';

type Enrollment = Record<string, unknown> & {
  id: string;
  token: string;
  jwt: string;
  expiresAt: string;
  method: string;
};

const base = `${API}/enrollments`;
const start = testTime();
const inMinutes = (minutes: number) => new Date(Date.parse(start) + minutes * 60_000).toISOString();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('enrollments', () => {
  let t: TestApp;
  let token: string;
  let caId: string;

  const post = (payload: unknown) => t.call({ method: 'POST', url: base, token, payload });
  const get = async (id: string): Promise<Enrollment> => {
    const result = await t.call({ method: 'GET', url: `${base}/${id}`, token });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Enrollment }).data;
  };
  const create = async (payload: Record<string, unknown>): Promise<string> => {
    const result = await post(payload);
    assert.equal(result.status, 201, result.text);
    const data = (result.body as { data: { id: string; _links: unknown } }).data;
    assert.deepEqual(data._links, { self: { href: `./enrollments/${data.id}` } });
    return data.id;
  };
  const listIds = async (url: string): Promise<string[]> => {
    const result = await t.call({ method: 'GET', url, token });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Enrollment[] }).data.map((e) => e.id);
  };
  const filtered = (filter: string) => `${base}?filter=${encodeURIComponent(filter)}`;
  const identityDetail = async (id: string) =>
    ((await t.call({ method: 'GET', url: `${API}/identities/${id}`, token })).body as { data: Record<string, unknown> })
      .data;

  /** Moves past an expiry and back, so sessions made before stay valid for the rest of the file. */
  async function afterExpiry<T>(minutes: number, work: () => Promise<T>): Promise<T> {
    t.clock.advance(minutes * 60_000);
    try {
      return await work();
    } finally {
      t.clock.set(start);
    }
  }

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
    // The CA operations arrive with another part of this issue; for ottca only the stored row matters here.
    caId = 'ca-for-enrollments';
    await t.deps.store.transaction((tx) =>
      insertRows(tx, 'cas', [
        {
          id: caId,
          created_at: start,
          updated_at: start,
          tags: '{}',
          is_system: 0,
          name: 'Third Party CA',
          fingerprint: '0'.repeat(40),
          cert_pem: 'unused',
          is_verified: 1,
          is_ott_ca_enrollment_enabled: 1,
        },
      ]),
    );
  });
  after(() => t.close());

  describe('createEnrollment and detailEnrollment', () => {
    it('creates an ott enrollment with a token and a JWT for the identity', async () => {
      const identityId = await createIdentity(t, token);
      const id = await create({ method: 'ott', identityId, expiresAt: inMinutes(60) });
      assert.match(id, /^[0-9A-Za-z]+$/, 'base62, as upstream ids enrollments made through this route');
      const enrollment = await get(id);
      assert.equal(enrollment.method, 'ott');
      assert.match(enrollment.token, UUID);
      assert.equal(enrollment.expiresAt, inMinutes(60));
      assert.equal(enrollment.identityId, identityId);
      assert.deepEqual((enrollment.identity as { id: string; entity: string }).entity, 'identities');
      assert.equal((enrollment.identity as { id: string }).id, identityId);
      assert.deepEqual(enrollment._links, { self: { href: `./enrollments/${id}` } });
      // Upstream leaves out what is empty (omitempty): no router, no CA, no username.
      for (const absent of ['caId', 'edgeRouter', 'edgeRouterId', 'transitRouter', 'transitRouterId', 'username']) {
        assert.equal(absent in enrollment, false, absent);
      }
      const claims = decodeJwt(enrollment.jwt);
      assert.deepEqual(
        { sub: claims.sub, jti: claims.jti, em: claims.em, exp: claims.exp },
        { sub: identityId, jti: enrollment.token, em: 'ott', exp: Date.parse(inMinutes(60)) / 1000 },
      );
      const shown = (await identityDetail(identityId)).enrollment as Record<string, unknown>;
      assert.deepEqual(shown, { ott: { expiresAt: inMinutes(60), id, jwt: enrollment.jwt, token: enrollment.token } });
    });

    it('creates ottca (with the CA) and updb (with the username) enrollments', async () => {
      const identityId = await createIdentity(t, token);
      const ottca = await get(await create({ method: 'ottca', identityId, caId, expiresAt: inMinutes(30) }));
      assert.equal(ottca.caId, caId);
      assert.equal(decodeJwt(ottca.jwt).em, 'ottca');
      const updb = await get(
        await create({ method: 'updb', identityId, username: `user-${identityId}`, expiresAt: inMinutes(30) }),
      );
      assert.equal(decodeJwt(updb.jwt).em, 'updb');
      const shown = (await identityDetail(identityId)).enrollment as Record<string, Record<string, unknown>>;
      assert.deepEqual(Object.keys(shown).sort(), ['ottca', 'updb']);
      assert.equal(shown.ottca!.caId, caId);
      assert.deepEqual(shown.ottca!.ca, {
        _links: { self: { href: `./cas/${caId}` } },
        entity: 'cas',
        id: caId,
        name: 'Third Party CA',
      });
      assert.equal(shown.updb!.token, updb.token);
    });

    it('refuses a second live enrollment of one method, but replaces an expired one', async () => {
      const identityId = await createIdentity(t, token);
      const first = await create({ method: 'ott', identityId, expiresAt: inMinutes(10) });
      const second = await post({ method: 'ott', identityId, expiresAt: inMinutes(20) });
      assertError(second, 409, 'ENROLLMENT_EXISTS', 'method');
      // Another method is fine.
      await create({ method: 'updb', identityId, username: `second-${identityId}`, expiresAt: inMinutes(20) });
      const replacement = await afterExpiry(11, () => create({ method: 'ott', identityId, expiresAt: inMinutes(60) }));
      assert.deepEqual(await listIds(filtered(`identity = "${identityId}"`)).then((ids) => ids.includes(first)), false);
      assert.ok((await listIds(filtered(`identity = "${identityId}"`))).includes(replacement));
    });

    it('refuses bad input with 400 and the field at fault', async () => {
      const identityId = await createIdentity(t, token);
      assertError(
        await post({ method: 'ott', identityId: 'missing', expiresAt: inMinutes(10) }),
        400,
        'COULD_NOT_VALIDATE',
        'identityId',
      );
      assertError(
        await post({ method: 'ott', identityId, expiresAt: inMinutes(-1) }),
        400,
        'COULD_NOT_VALIDATE',
        'expiresAt',
      );
      assertError(await post({ method: 'ott', identityId, expiresAt: start }), 400, 'COULD_NOT_VALIDATE', 'expiresAt');
      assertError(
        await post({ method: 'updb', identityId, expiresAt: inMinutes(10) }),
        400,
        'COULD_NOT_VALIDATE',
        'username',
      );
      assertError(
        await post({ method: 'updb', identityId, username: '', expiresAt: inMinutes(10) }),
        400,
        'COULD_NOT_VALIDATE',
        'username',
      );
      assertError(
        await post({ method: 'ottca', identityId, expiresAt: inMinutes(10) }),
        400,
        'COULD_NOT_VALIDATE',
        'caId',
      );
      assertError(
        await post({ method: 'ottca', identityId, caId: 'missing', expiresAt: inMinutes(10) }),
        400,
        'COULD_NOT_VALIDATE',
        'caId',
      );
      // Shapes the contract refuses before the rules run.
      assertError(await post({ method: 'erott', identityId, expiresAt: inMinutes(10) }), 400, 'COULD_NOT_VALIDATE');
      assertError(await post({ method: 'ott', identityId }), 400, 'COULD_NOT_VALIDATE');
      // A date-time that does not parse fails while decoding, as upstream's strfmt.DateTime does.
      assertError(await post({ method: 'ott', identityId, expiresAt: 'tomorrow' }), 400, 'COULD_NOT_PARSE_BODY');
      assertError(await post({ method: 'ott', expiresAt: inMinutes(10) }), 400, 'COULD_NOT_VALIDATE');
      assertError(await t.call({ method: 'POST', url: base, token }), 400, 'COULD_NOT_VALIDATE');
      assert.deepEqual(await listIds(filtered(`identity = "${identityId}"`)), [], 'nothing was created');
    });

    it('refuses a username a password authenticator or another live enrollment already holds', async () => {
      const user = await createUser(t, token);
      const identityId = await createIdentity(t, token);
      assertError(
        await post({ method: 'updb', identityId, username: user.username, expiresAt: inMinutes(10) }),
        400,
        'COULD_NOT_VALIDATE',
        'username',
      );
      const other = await createIdentity(t, token);
      await create({ method: 'updb', identityId: other, username: `held-${other}`, expiresAt: inMinutes(10) });
      assertError(
        await post({ method: 'updb', identityId, username: `held-${other}`, expiresAt: inMinutes(10) }),
        400,
        'COULD_NOT_VALIDATE',
        'username',
      );
    });

    it('answers 404 for an unknown id, and 401 to anyone but an admin', async () => {
      assertError(await t.call({ method: 'GET', url: `${base}/nope`, token }), 404, 'NOT_FOUND');
      const user = await createUser(t, token);
      const userToken = await login(t, user.username, user.password, 'management');
      assertError(await t.call({ method: 'GET', url: base, token: userToken }), 401, 'UNAUTHORIZED');
      assertError(
        await t.call({
          method: 'POST',
          url: base,
          token: userToken,
          payload: { method: 'ott', identityId: user.id, expiresAt: inMinutes(10) },
        }),
        401,
        'UNAUTHORIZED',
      );
    });
  });

  describe('listEnrollments', () => {
    it('filters by token, identity and caId, and refuses the symbols upstream keeps private', async () => {
      const identityId = await createIdentity(t, token);
      const ott = await get(await create({ method: 'ott', identityId, expiresAt: inMinutes(10) }));
      const ottca = await create({ method: 'ottca', identityId, caId, expiresAt: inMinutes(10) });
      assert.deepEqual(await listIds(filtered(`token = "${ott.token}"`)), [ott.id]);
      assert.deepEqual((await listIds(filtered(`identity = "${identityId}"`))).sort(), [ott.id, ottca].sort());
      assert.ok((await listIds(filtered(`caId = "${caId}"`))).includes(ottca));
      assert.deepEqual(await listIds(filtered('edgeRouter = "nope" or transitRouter = "nope"')), []);
      assertError(await t.call({ method: 'GET', url: filtered('method = "ott"'), token }), 400, 'INVALID_FILTER');
      assertError(
        await t.call({ method: 'GET', url: filtered(`expiresAt > datetime(${start})`), token }),
        400,
        'INVALID_FILTER',
      );
      const list = await t.call({ method: 'GET', url: `${base}?limit=2`, token });
      const meta = (
        list.body as { meta: { filterableFields: string[]; pagination: { limit: number; totalCount: number } } }
      ).meta;
      assert.deepEqual([...meta.filterableFields].sort(), [
        'caId',
        'createdAt',
        'edgeRouter',
        'id',
        'identity',
        'isSystem',
        'tags',
        'token',
        'transitRouter',
        'updatedAt',
      ]);
      assert.equal(meta.pagination.limit, 2);
      assert.ok(meta.pagination.totalCount >= 2);
    });

    it('shows router enrollments with their router, told apart by edgeRouter and transitRouter', async () => {
      const edgeRouterId = await createEdgeRouter(t, token);
      const transitRouterId = await createTransitRouter(t, token);
      const [erott] = await listIds(filtered(`edgeRouter = "${edgeRouterId}"`));
      const [trott] = await listIds(filtered(`transitRouter = "${transitRouterId}"`));
      assert.ok(erott && trott, 'creating a router makes its enrollment');
      assert.deepEqual(
        await listIds(filtered(`edgeRouter = "${transitRouterId}" or transitRouter = "${edgeRouterId}"`)),
        [],
      );
      const edge = await get(erott);
      assert.deepEqual(
        [
          edge.method,
          edge.edgeRouterId,
          (edge.edgeRouter as { entity: string }).entity,
          'identity' in edge,
          'transitRouter' in edge,
        ],
        ['erott', edgeRouterId, 'edge-routers', false, false],
      );
      const transit = await get(trott);
      assert.deepEqual(
        [
          transit.method,
          transit.transitRouterId,
          (transit.transitRouter as { entity: string }).entity,
          'edgeRouter' in transit,
        ],
        ['trott', transitRouterId, 'transit-routers', false],
      );
      assert.equal(decodeJwt(edge.jwt).sub, edgeRouterId);
    });

    it("lists an identity's enrollments under identities/{id}/enrollments", async () => {
      const identityId = await createIdentity(t, token, { enrollment: { ott: true } });
      const id = ((await identityDetail(identityId)).enrollment as { ott: { id: string } }).ott.id;
      assert.deepEqual(await listIds(`${API}/identities/${identityId}/enrollments`), [id]);
      assert.deepEqual(await listIds(`${API}/identities/${await createIdentity(t, token)}/enrollments`), []);
      assertError(await t.call({ method: 'GET', url: `${API}/identities/nope/enrollments`, token }), 404, 'NOT_FOUND');
    });

    it('is counted in the summary', async () => {
      const before = (
        (await t.call({ method: 'GET', url: `${API}/summary`, token })).body as { data: { enrollments: number } }
      ).data.enrollments;
      await createIdentity(t, token, { enrollment: { ott: true } });
      const after = (
        (await t.call({ method: 'GET', url: `${API}/summary`, token })).body as { data: { enrollments: number } }
      ).data.enrollments;
      assert.equal(after, before + 1);
    });
  });

  describe('deleteEnrollment', () => {
    it('deletes, after which the token no longer enrolls', async () => {
      const identityId = await createIdentity(t, token);
      const enrollment = await get(
        await create({ method: 'updb', identityId, username: `deleted-${identityId}`, expiresAt: inMinutes(10) }),
      );
      const deleted = await t.call({ method: 'DELETE', url: `${base}/${enrollment.id}`, token });
      assert.equal(deleted.status, 200, deleted.text);
      assertError(await t.call({ method: 'GET', url: `${base}/${enrollment.id}`, token }), 404, 'NOT_FOUND');
      assertError(await t.call({ method: 'DELETE', url: `${base}/${enrollment.id}`, token }), 404, 'NOT_FOUND');
      const enroll = await t.call({
        method: 'POST',
        url: `/edge/client/v1/enroll/updb?token=${enrollment.token}`,
        payload: { password: 'a-password' },
      });
      assertError(enroll, 400, 'INVALID_ENROLLMENT_TOKEN');
    });

    it('goes with its identity', async () => {
      const identityId = await createIdentity(t, token, { enrollment: { ott: true } });
      const id = ((await identityDetail(identityId)).enrollment as { ott: { id: string } }).ott.id;
      assert.equal((await t.call({ method: 'DELETE', url: `${API}/identities/${identityId}`, token })).status, 200);
      assertError(await t.call({ method: 'GET', url: `${base}/${id}`, token }), 404, 'NOT_FOUND');
    });
  });

  describe('refreshEnrollment', () => {
    it('re-signs the JWT for a new expiry and keeps the token, even after it expired', async () => {
      const identityId = await createIdentity(t, token);
      const before = await get(await create({ method: 'ott', identityId, expiresAt: inMinutes(10) }));
      const refresh = (expiresAt: string) =>
        t.call({ method: 'POST', url: `${base}/${before.id}/refresh`, token, payload: { expiresAt } });
      const result = await afterExpiry(15, () => refresh(inMinutes(120)));
      assert.equal(result.status, 200, result.text);
      assert.deepEqual((result.body as { data: unknown }).data, {
        _links: { self: { href: `./enrollments/${before.id}` } },
        id: before.id,
      });
      const after = await get(before.id);
      assert.equal(after.token, before.token);
      assert.equal(after.expiresAt, inMinutes(120));
      assert.notEqual(after.jwt, before.jwt);
      assert.equal(decodeJwt(after.jwt).exp, Date.parse(inMinutes(120)) / 1000);
      assert.equal(decodeJwt(after.jwt).jti, before.token);
      // The refreshed token enrolls after the original expiry.
      const csr = await newCsr();
      const enroll = await afterExpiry(30, () =>
        t.call({
          method: 'POST',
          url: `/edge/client/v1/enroll?method=ott&token=${before.token}`,
          headers: { 'content-type': 'text/plain' },
          payload: csr,
        }),
      );
      assert.equal(enroll.status, 200, enroll.text);
    });

    it('refuses a past expiry, an unknown id and a missing body', async () => {
      const identityId = await createIdentity(t, token);
      const id = await create({ method: 'ott', identityId, expiresAt: inMinutes(10) });
      const refresh = (target: string, payload?: unknown) =>
        t.call({ method: 'POST', url: `${base}/${target}/refresh`, token, ...(payload ? { payload } : {}) });
      const past = await refresh(id, { expiresAt: '2020-01-02T03:04:05.120Z' });
      assertError(past, 400, 'COULD_NOT_VALIDATE', 'expiresAt');
      // Upstream shows the instant as Go prints a time.Time, and a bare 404 for an unknown id (asked of v1.1.8).
      assert.equal(
        (past.body as { error: { cause: { value: string } } }).error.cause.value,
        '2020-01-02 03:04:05.12 +0000 UTC',
      );
      const unknown = await refresh('nope', { expiresAt: inMinutes(60) });
      assertError(unknown, 404, 'NOT_FOUND');
      assert.equal((unknown.body as { error: { cause?: unknown } }).error.cause, undefined);
      assertError(await refresh(id), 400, 'COULD_NOT_VALIDATE');
      assertError(await refresh(id, {}), 400, 'COULD_NOT_VALIDATE');
      assert.equal((await get(id)).expiresAt, inMinutes(10), 'unchanged');
    });
  });

  describe('identity create with an enrollment', () => {
    it('makes the first requested enrollment for 180 minutes', async () => {
      const ott = await identityDetail(
        await createIdentity(t, token, { enrollment: { ott: true, updb: 'ignored-name' } }),
      );
      assert.deepEqual(Object.keys(ott.enrollment as object), ['ott']);
      assert.equal((ott.enrollment as { ott: { expiresAt: string } }).ott.expiresAt, inMinutes(180));
      const ottca = await identityDetail(await createIdentity(t, token, { enrollment: { ott: false, ottca: caId } }));
      assert.deepEqual(Object.keys(ottca.enrollment as object), ['ottca']);
      const name = `created-${Date.now()}`;
      const updb = await identityDetail(await createIdentity(t, token, { enrollment: { updb: name } }));
      const enrollmentId = (updb.enrollment as { updb: { id: string } }).updb.id;
      assert.equal((await get(enrollmentId)).method, 'updb');
      assert.deepEqual((await identityDetail(await createIdentity(t, token, { enrollment: {} }))).enrollment, {});
    });

    it('refuses an unknown CA or a taken username, and then creates no identity', async () => {
      const user = await createUser(t, token);
      const name = `refused-${Date.now()}`;
      const create = (enrollment: unknown) =>
        t.call({
          method: 'POST',
          url: `${API}/identities`,
          token,
          payload: { name, type: 'User', isAdmin: false, enrollment },
        });
      assertError(await create({ ottca: 'missing' }), 400, 'COULD_NOT_VALIDATE', 'enrollment.ottca');
      assertError(await create({ updb: user.username }), 400, 'COULD_NOT_VALIDATE', 'enrollment.updb');
      const list = await t.call({
        method: 'GET',
        url: `${API}/identities?filter=${encodeURIComponent(`name = "${name}"`)}`,
        token,
      });
      assert.deepEqual((list.body as { data: unknown[] }).data, []);
    });
  });

  describe('reEnrollAuthenticator', () => {
    const reEnroll = (id: string, expiresAt = inMinutes(60)) =>
      t.call({ method: 'POST', url: `${API}/authenticators/${id}/re-enroll`, token, payload: { expiresAt } });

    it('turns a password authenticator into a updb enrollment with the same username', async () => {
      const user = await createUser(t, token);
      const result = await reEnroll(user.authenticatorId);
      assert.equal(result.status, 201, result.text);
      const { id, _links } = (result.body as { data: { id: string; _links: unknown } }).data;
      assert.deepEqual(_links, { self: { href: `./enrollments/${id}` } });
      const enrollment = await get(id);
      assert.equal(enrollment.method, 'updb');
      assert.equal(enrollment.identityId, user.id);
      assert.equal(enrollment.expiresAt, inMinutes(60));
      assertError(
        await t.call({ method: 'GET', url: `${API}/authenticators/${user.authenticatorId}`, token }),
        404,
        'NOT_FOUND',
      );
      assert.deepEqual((await identityDetail(user.id)).authenticators, {});
      // The user sets a new password and logs in under the old name.
      const enroll = await t.call({
        method: 'POST',
        url: `/edge/client/v1/enroll/updb?token=${enrollment.token}`,
        payload: { password: 'brand-new-password' },
      });
      assert.equal(enroll.status, 200, enroll.text);
      await login(t, user.username, 'brand-new-password');
    });

    it('turns a certificate authenticator into ott, or ottca when a third-party CA issued it', async () => {
      const identityId = await createIdentity(t, token, { enrollment: { ott: true } });
      const { token: ottToken } = ((await identityDetail(identityId)).enrollment as { ott: { token: string } }).ott;
      const enroll = await t.call({
        method: 'POST',
        url: `/edge/client/v1/enroll?method=ott&token=${ottToken}`,
        headers: { 'content-type': 'text/plain' },
        payload: await newCsr(),
      });
      assert.equal(enroll.status, 200, enroll.text);
      const certId = ((await identityDetail(identityId)).authenticators as { cert: { id: string } }).cert.id;
      const reEnrolled = await reEnroll(certId);
      assert.equal(reEnrolled.status, 201, reEnrolled.text);
      const ott = await get((reEnrolled.body as { data: { id: string } }).data.id);
      assert.equal(ott.method, 'ott');
      assert.equal('caId' in ott, false);
      assertError(await t.call({ method: 'GET', url: `${API}/authenticators/${certId}`, token }), 404, 'NOT_FOUND');

      // A certificate authenticator from an ottca enrollment remembers its CA.
      const other = await createIdentity(t, token);
      const authenticatorId = 'third-party-cert';
      await t.deps.store.transaction((tx) =>
        insertRows(tx, 'authenticators', [
          {
            id: authenticatorId,
            created_at: start,
            updated_at: start,
            identity_id: other,
            method: 'cert',
            cert_fingerprint: 'f'.repeat(40),
            cert_pem: 'unused',
            ca_id: caId,
          },
        ]),
      );
      const result = await reEnroll(authenticatorId);
      assert.equal(result.status, 201, result.text);
      const ottca = await get((result.body as { data: { id: string } }).data.id);
      assert.deepEqual([ottca.method, ottca.caId, ottca.identityId], ['ottca', caId, other]);
    });

    it('refuses a past expiry, an unknown authenticator and a live enrollment of the same method', async () => {
      const user = await createUser(t, token);
      assertError(await reEnroll(user.authenticatorId, inMinutes(-1)), 400, 'COULD_NOT_VALIDATE', 'expiresAt');
      assertError(await reEnroll('nope'), 404, 'NOT_FOUND');
      assertError(
        await t.call({
          method: 'POST',
          url: `${API}/authenticators/${user.authenticatorId}/re-enroll`,
          token,
          payload: {},
        }),
        400,
        'COULD_NOT_VALIDATE',
      );
      await create({ method: 'updb', identityId: user.id, username: `pending-${user.id}`, expiresAt: inMinutes(10) });
      assertError(await reEnroll(user.authenticatorId), 409, 'ENROLLMENT_EXISTS');
      // Nothing changed: the authenticator still logs in.
      await login(t, user.username, user.password);
    });
  });
});

/** An EC P-256 CSR, as the C SDK makes one. */
async function newCsr(): Promise<string> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const csr = await Pkcs10CertificateRequestGenerator.create({
    name: 'CN=enrollments-test',
    keys,
    signingAlgorithm: algorithm,
  });
  return csr.toString('pem');
}
