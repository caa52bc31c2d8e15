import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pairRows } from '../../../src/store/queries/pair-rows.js';
import { serviceEdgeRouterPolicyKind, servicePolicyKind } from '../../../src/store/queries/policy-tables.js';
import { deleteRows, insertRows, updateRows } from '../../../src/store/queries/table-rows.js';
import { IntegrityChecks, type IntegrityStatus } from '../../../src/integrity/integrity-checks.js';
import type { Store } from '../../../src/store/store.js';
import { describeDifference, integrityDifferences, scanIntegrity } from '../../../src/integrity/integrity-scan.js';
import { certificateFingerprint } from '../../../src/pki/fingerprint.js';
import { assertError } from '../../support/conformance.js';
import { createEdgeRouter, createEntity, createIdentity, createService } from '../../support/factories.js';
import { createTestCa } from '../../support/third-party-ca.js';
import { buildTestApp, testTime, type TestApp } from '../../support/test-app.js';
import { MANAGEMENT as api } from '../../support/api-paths.js';

/** The pair tables are keyed by integers; tests name their rows by ids. */
const identityServices = pairRows(servicePolicyKind);

type IntegrityData = IntegrityStatus;

async function integrityResults(
  t: TestApp,
  token: string,
): Promise<{ data: IntegrityData; meta: Record<string, unknown> }> {
  const result = await t.call({ method: 'GET', url: `${api}/database/data-integrity-results`, token });
  assert.equal(result.status, 200, result.text);
  return result.body as { data: IntegrityData; meta: Record<string, unknown> };
}

async function scan(t: TestApp, token: string, kind: 'check' | 'fix'): Promise<IntegrityData> {
  const started = await t.call({ method: 'POST', url: `${api}/database/${kind}-data-integrity`, token });
  assert.equal(started.status, 202, started.text);
  assert.deepEqual(started.body, { data: {}, meta: { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' } });
  await t.deps.integrityChecks.settled();
  return (await integrityResults(t, token)).data;
}

const snapshotsIn = (folder: string) => readdirSync(folder).filter((name) => /^ctrl\.db-\d{8}-\d{6}$/.test(name));

/**
 * A test app on a database file in a folder of its own, for the suite that calls it: a scan then reads its own
 * snapshot connection and snapshots land beside the file, as in production.
 */
function onDatabaseFile(prefix: string): { t: TestApp; token: string; folder: string } {
  const context = {} as { t: TestApp; token: string; folder: string };
  before(async () => {
    context.folder = mkdtempSync(join(tmpdir(), prefix));
    context.t = await buildTestApp({ databaseFile: join(context.folder, 'ctrl.db') });
    context.token = await context.t.loginAsAdmin();
  });
  after(async () => {
    await context.t.close();
    rmSync(context.folder, { recursive: true, force: true });
  });
  return context;
}

describe('data integrity', () => {
  const app = onDatabaseFile('ziti-integrity-');

  it('answers nulls before any scan, in upstream shape', async () => {
    const { data, meta } = await integrityResults(app.t, app.token);
    assert.deepEqual(data, {
      inProgress: false,
      fixingErrors: false,
      tooManyErrors: false,
      startTime: null,
      endTime: null,
      error: null,
      results: null,
    });
    assert.deepEqual(meta.pagination, { limit: -1, offset: 0, totalCount: 0 });
    assert.equal(meta.filterableFields, undefined);
  });

  it('finds nothing in a database the engine kept', async () => {
    const data = await scan(app.t, app.token, 'check');
    assert.equal(data.error, null);
    assert.equal(data.results, null);
    assert.equal(data.inProgress, false);
    assert.equal(data.startTime, testTime());
    assert.equal(data.endTime, testTime());
  });

  it('check reports exactly the corrupted derived rows and changes nothing; fix repairs exactly those', async () => {
    const i1 = await createIdentity(app.t, app.token, { roleAttributes: ['a', 'b'] });
    const i2 = await createIdentity(app.t, app.token, { roleAttributes: ['a'] });
    const configType = await createEntity(app.t, app.token, 'config-types', { name: 'integrity-type' });
    const otherType = await createEntity(app.t, app.token, 'config-types', { name: 'integrity-other-type' });
    const config = await createEntity(app.t, app.token, 'configs', {
      name: 'integrity-config',
      configTypeId: configType,
      data: { v: 1 },
    });
    const s1 = await createService(app.t, app.token, { roleAttributes: ['s'], configs: [config] });
    const s2 = await createService(app.t, app.token, { roleAttributes: ['s'] });
    const r1 = await createEdgeRouter(app.t, app.token, { roleAttributes: ['r'] });
    const r2 = await createEdgeRouter(app.t, app.token, { roleAttributes: ['other'] });
    await createEntity(app.t, app.token, 'posture-checks', {
      name: 'integrity-pc',
      typeId: 'DOMAIN',
      domains: ['example.com'],
      roleAttributes: ['p'],
    });
    const dial = await createEntity(app.t, app.token, 'service-policies', {
      name: 'integrity-dial',
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles: ['#a'],
      serviceRoles: ['#s'],
      postureCheckRoles: ['#p'],
    });
    await createEntity(app.t, app.token, 'service-policies', {
      name: 'integrity-bind',
      type: 'Bind',
      semantic: 'AnyOf',
      identityRoles: ['#b'],
      serviceRoles: [`@${s1}`],
      postureCheckRoles: [],
    });
    const erp = await createEntity(app.t, app.token, 'edge-router-policies', {
      name: 'integrity-erp',
      semantic: 'AllOf',
      identityRoles: ['#a'],
      edgeRouterRoles: ['#r'],
    });
    await createEntity(app.t, app.token, 'service-edge-router-policies', {
      name: 'integrity-serp',
      semantic: 'AllOf',
      serviceRoles: ['#s'],
      edgeRouterRoles: ['#all'],
    });
    const override = await app.t.call({
      method: 'POST',
      url: `${api}/identities/${i1}/service-configs`,
      token: app.token,
      payload: [{ serviceId: s1, configId: config }],
    });
    assert.equal(override.status, 200, override.text);
    const testCa = await createTestCa('integrity', app.t.clock());
    const ca = await createEntity(app.t, app.token, 'cas', {
      name: 'integrity-ca',
      certPem: testCa.certPem,
      isAutoCaEnrollmentEnabled: false,
      isOttCaEnrollmentEnabled: false,
      isAuthEnabled: false,
      identityRoles: [],
    });
    assert.equal((await scan(app.t, app.token, 'check')).results, null, 'consistent before the corruption');

    // 1. Corrupt one row of each kind of derived table, straight in the store.
    await app.t.deps.store.transaction(async (tx) => {
      await deleteRows(tx, 'identity_role_attributes', { entity_id: i1, value: 'b' });
      await insertRows(tx, 'service_role_attributes', [{ entity_id: s2, value: 'ghost' }]);
      await deleteRows(tx, 'service_policy_identities', { policy_id: dial, entity_id: i2 });
      await insertRows(tx, 'edge_router_policy_edge_routers', [{ policy_id: erp, entity_id: r2 }]);
      await identityServices.update(tx, { dial: 3 }, { identity_id: i1, service_id: s2 });
      await pairRows(serviceEdgeRouterPolicyKind).delete(tx, { service_id: s1, edge_router_id: r1 });
      await updateRows(tx, 'identity_service_updates', { changed_at: '2000-01-01T00:00:00.000Z' }, { identity_id: i2 });
      await updateRows(tx, 'identity_service_configs', { config_type_id: otherType }, { identity_id: i1 });
      await updateRows(tx, 'cas', { fingerprint: 'not-the-fingerprint' }, { id: ca });
    });
    const expected = [
      `identity_role_attributes: missing entity_id=${i1} value=b`,
      `service_role_attributes: unexpected entity_id=${s2} value=ghost`,
      `service_policy_identities: missing entity_id=${i2} policy_id=${dial}`,
      `edge_router_policy_edge_routers: unexpected entity_id=${r2} policy_id=${erp}`,
      `identity_services: identity_id=${i1} service_id=${s2} has dial=3 bind=0, should have dial=1 bind=0`,
      `service_edge_routers: missing service_id=${s1} edge_router_id=${r1} (count=1)`,
      `identity_service_updates: identity_id=${i2} has changed_at=2000-01-01T00:00:00.000Z, should have changed_at=${testTime()}`,
      `identity_service_configs: identity_id=${i1} service_id=${s1} config_id=${config} has config_type_id=${otherType}, should have config_type_id=${configType}`,
      `cas: id=${ca} has fingerprint=not-the-fingerprint, should have fingerprint=${certificateFingerprint(testCa.certPem)}`,
    ].sort();

    // 2. Check finds exactly those and repairs nothing.
    const checked = await scan(app.t, app.token, 'check');
    assert.equal(checked.error, null);
    assert.equal(checked.fixingErrors, false);
    assert.deepEqual(checked.results!.map((r) => r.description).sort(), expected);
    assert.ok(checked.results!.every((r) => !r.fixed));
    const dialCount = async () =>
      (await app.t.deps.store.read((db) => identityServices.select(db, { identity_id: i1, service_id: s2 })))[0]?.dial;
    assert.equal(await dialCount(), 3, 'a check writes nothing');
    assert.deepEqual(snapshotsIn(app.folder), []);

    // 3. Fix snapshots the database first, then repairs exactly those.
    const fixed = await scan(app.t, app.token, 'fix');
    assert.equal(fixed.fixingErrors, true);
    assert.deepEqual(fixed.results!.map((r) => r.description).sort(), expected);
    assert.ok(fixed.results!.every((r) => r.fixed));
    assert.equal(await dialCount(), 1);
    assert.equal(snapshotsIn(app.folder).length, 1, 'a snapshot before the repair');

    // 4. Nothing is left to find.
    assert.equal((await scan(app.t, app.token, 'check')).results, null);
  });

  it('is admin only', async () => {
    for (const [method, path] of [
      ['POST', 'check-data-integrity'],
      ['POST', 'fix-data-integrity'],
      ['GET', 'data-integrity-results'],
      ['POST', 'snapshot'],
    ] as const) {
      assertError(await app.t.call({ method, url: `${api}/database/${path}` }), 401, 'UNAUTHORIZED');
    }
  });
});

describe('one integrity scan at a time', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  it('refuses a second scan of either kind while one runs with 429 RATE_LIMITED, and reports it in progress', async () => {
    await integrityResults(t, token);
    // The scan's reads wait at a gate the test opens, so it is still running when the next requests come, on either
    // store (a transaction held open does not block PostgreSQL's snapshot reads).
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { store, clock, logger, snapshots } = t.deps;
    const gated: Store = Object.create(store, {
      readSnapshot: {
        value: async (work: Parameters<Store['readSnapshot']>[0]) => gate.then(() => store.readSnapshot(work)),
      },
    });
    t.deps.integrityChecks = new IntegrityChecks({ store: gated, clock, logger, snapshots });
    const started = await t.call({ method: 'POST', url: `${api}/database/check-data-integrity`, token });
    assert.equal(started.status, 202);
    const running = await integrityResults(t, token);
    assert.equal(running.data.inProgress, true);
    assert.equal(running.data.fixingErrors, false);
    assert.equal(running.data.endTime, null);
    assertError(
      await t.call({ method: 'POST', url: `${api}/database/fix-data-integrity`, token }),
      429,
      'RATE_LIMITED',
    );
    assertError(
      await t.call({ method: 'POST', url: `${api}/database/check-data-integrity`, token }),
      429,
      'RATE_LIMITED',
    );
    release();
    await t.deps.integrityChecks.settled();
    const done = await integrityResults(t, token);
    assert.equal(done.data.inProgress, false);
    assert.equal(done.data.results, null);
    assert.equal(
      (await t.call({ method: 'POST', url: `${api}/database/fix-data-integrity`, token })).status,
      202,
      'a new scan once it finished',
    );
    await t.deps.integrityChecks.settled();
  });
});

describe('createDatabaseSnapshot', () => {
  const app = onDatabaseFile('ziti-snapshot-');

  it('writes a timestamped copy beside the database, at most once a minute', async () => {
    const first = await app.t.call({ method: 'POST', url: `${api}/database/snapshot`, token: app.token });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body, { data: {}, meta: { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' } });
    const stamp = testTime().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
    assert.deepEqual(snapshotsIn(app.folder), [`ctrl.db-${stamp}`]);
    assert.equal(statSync(join(app.folder, `ctrl.db-${stamp}`)).mode & 0o777, 0o600);

    assertError(
      await app.t.call({ method: 'POST', url: `${api}/database/snapshot`, token: app.token }),
      429,
      'RATE_LIMITED',
    );
    app.t.clock.advance(59_000);
    assertError(
      await app.t.call({ method: 'POST', url: `${api}/database/snapshot`, token: app.token }),
      429,
      'RATE_LIMITED',
    );
    app.t.clock.advance(1_000);
    assert.equal((await app.t.call({ method: 'POST', url: `${api}/database/snapshot`, token: app.token })).status, 200);
    assert.equal(snapshotsIn(app.folder).length, 2);
  });

  it('is a database a controller starts on, with the data as it was (the README restore procedure)', async () => {
    const kept = await createIdentity(app.t, app.token, { name: 'kept-in-snapshot', roleAttributes: ['kept'] });
    app.t.clock.advance(60_000);
    assert.equal((await app.t.call({ method: 'POST', url: `${api}/database/snapshot`, token: app.token })).status, 200);
    const snapshot = snapshotsIn(app.folder).sort().at(-1)!;
    await createIdentity(app.t, app.token, { name: 'made-after-snapshot' });

    // Restore: the snapshot becomes the database file of a controller that starts on it.
    const restoredFolder = mkdtempSync(join(tmpdir(), 'ziti-restored-'));
    try {
      copyFileSync(join(app.folder, snapshot), join(restoredFolder, 'ctrl.db'));
      const restored = await buildTestApp({ databaseFile: join(restoredFolder, 'ctrl.db') });
      try {
        const admin = await restored.loginAsAdmin();
        const found = await restored.call({
          method: 'GET',
          url: `${api}/identities?filter=${encodeURIComponent('name contains "snapshot"')}`,
          token: admin,
        });
        assert.equal(found.status, 200, found.text);
        const data = (found.body as { data: Array<{ id: string; name: string; roleAttributes: string[] }> }).data;
        assert.deepEqual(
          data.map((identity) => [identity.id, identity.name, identity.roleAttributes]),
          [[kept, 'kept-in-snapshot', ['kept']]],
        );
        assert.equal((await scan(restored, admin, 'check')).results, null, 'the copy is consistent');
      } finally {
        await restored.close();
      }
    } finally {
      rmSync(restoredFolder, { recursive: true, force: true });
    }
    assert.ok(existsSync(join(app.folder, snapshot)));
  });
});

describe('repairs', () => {
  const app = onDatabaseFile('ziti-repairs-');
  const fix = (options: Partial<Parameters<typeof scanIntegrity>[1]> = {}) => {
    const reports: Array<[string, boolean]> = [];
    const done = scanIntegrity(app.t.deps.store, {
      fix: true,
      clock: app.t.clock,
      report: (d, isFixed) => reports.push([describeDifference(d), isFixed]),
      ...options,
    });
    return done.then(() => reports);
  };

  it('runs as many passes as the differences need, each on a fresh snapshot', async () => {
    const identities = await Promise.all(
      ['p1', 'p2', 'p3', 'p4', 'p5'].map((attribute) =>
        createIdentity(app.t, app.token, { roleAttributes: [attribute] }),
      ),
    );
    await app.t.deps.store.transaction((tx) => deleteRows(tx, 'identity_role_attributes', { entity_id: identities }));
    const reports = await fix({ pendingLimit: 2 });
    assert.equal(reports.length, 5);
    assert.ok(reports.every(([, isFixed]) => isFixed));
    assert.deepEqual(await integrityDifferences(app.t.deps.store, app.t.clock), []);
  });

  it('leaves a row a write changed since the snapshot, and one whose repair the database refuses', async () => {
    const changed = await createIdentity(app.t, app.token, { roleAttributes: ['c'] });
    const deleted = await createIdentity(app.t, app.token, { roleAttributes: ['d'] });
    const service = await createService(app.t, app.token, { roleAttributes: ['c'] });
    await createEntity(app.t, app.token, 'service-policies', {
      name: 'repair-race',
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles: ['#c'],
      serviceRoles: ['#c'],
      postureCheckRoles: [],
    });
    await app.t.deps.store.transaction(async (tx) => {
      await identityServices.update(tx, { dial: 3 }, { identity_id: changed });
      await deleteRows(tx, 'identity_role_attributes', { entity_id: deleted });
    });
    const reports = await fix({
      // Between the snapshot and the repair: one row moves on, one repair loses the row it references.
      beforeRepair: () =>
        app.t.deps.store.transaction(async (tx) => {
          await identityServices.update(tx, { dial: 4 }, { identity_id: changed });
          await deleteRows(tx, 'identities', { id: deleted });
        }),
    });
    assert.deepEqual(reports.sort(), [
      [`identity_role_attributes: missing entity_id=${deleted} value=d`, false],
      [
        `identity_services: identity_id=${changed} service_id=${service} has dial=3 bind=0, should have dial=1 bind=0`,
        false,
      ],
    ]);
  });
});
