// The import of a database a real upstream v1.1.8 controller wrote (test/migrate/record-fixtures.ts), compared
// field by field with what upstream answered from that database: every entity type, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { diffValues } from '../upstream/compare.js';
import type { Json } from '../upstream/normalise.js';
import { importedApp, recordedAnswers, recordedSecrets, type ImportedApp } from './imported-app.js';
import { fixtureLists } from './upstream-client.js';

/**
 * Differences between upstream's answers and ours that are not the import's: each is ours' answer for any entity,
 * imported or not, and has its reason.
 */
const explained: { pattern: RegExp; reason: string }[] = [
  {
    pattern: /^value: .+\.(createdAt|updatedAt): "0001-01-01T00:00:00\.000Z" ≠ /,
    reason: 'upstream shows zero times on authenticators and enrollments (explained-differences.yaml)',
  },
  {
    pattern: /^value: .+\.enrollmentCreatedAt: "0001-01-01T00:00:00\.000Z" ≠ /,
    reason: "upstream shows a router enrollment's zero time (explained-differences.yaml)",
  },
  { pattern: /^value: .+\.hasApiSession: true ≠ false$/, reason: 'API sessions are not carried over' },
  {
    pattern: /^value: [^ ]+: null ≠ \[\]$/,
    reason: 'upstream renders a list it never stored as null, ours as [] (any entity, not only imported ones)',
  },
  {
    pattern: /^only ours: mfa\.promptOnUnlock = false$/,
    reason: 'ours renders every MFA flag (posture-check-subtypes.ts)',
  },
  { pattern: /^only ours: idp\.(clientId|scopes) = /, reason: 'edge-api after 0.26.22 (explained-differences.yaml)' },
];

const data = (answer: unknown): Json[] => (answer as { data: Json[] }).data;

describe('importing a v1.1.8 database', () => {
  let imported: ImportedApp;
  let token: string;
  before(async () => {
    imported = await importedApp();
    const login = await imported.app.call({
      method: 'POST',
      url: '/edge/management/v1/authenticate?method=password',
      payload: { username: 'admin', password: 'Admin-Password-1' },
    });
    assert.equal(login.status, 200, login.text);
    token = (login.body as { data: { token: string } }).data.token;
  });
  after(() => imported.close());

  it('reads schema version 36 and every entity type', () => {
    assert.equal(imported.data.schemaVersion, 36);
    assert.deepEqual(Object.fromEntries(imported.result.written), {
      externalJwtSigner: 1,
      authPolicy: 2,
      configType: 6,
      config: 4,
      ca: 1,
      identity: 10,
      authenticator: 5,
      mfa: 1,
      router: 3,
      enrollment: 5,
      service: 2,
      terminator: 1,
      postureCheck: 6,
      servicePolicy: 2,
      edgeRouterPolicy: 2,
      serviceEdgeRouterPolicy: 1,
      serviceConfigOverride: 1,
    });
  });

  it('derives the policy links, and the integrity scan finds nothing left to repair', () => {
    assert.ok((imported.result.derived.get('identity_edge_routers') ?? 0) > 0);
    assert.equal(imported.result.repairedAfter, 0);
  });

  it('says what it left behind', () => {
    assert.deepEqual(Object.fromEntries(imported.data.dropped), {
      'apiSessions (clients log in again)': 3,
    });
  });

  const answers = recordedAnswers();
  for (const path of fixtureLists) {
    it(`answers ${path} as upstream did, field by field`, async () => {
      const reply = await imported.app.call({
        method: 'GET',
        url: `/edge/management/v1${path}`,
        headers: { 'zt-session': token },
      });
      assert.equal(reply.status, 200, reply.text);
      const upstream = data(answers[path]);
      const ours = data(reply.body);
      assert.equal(ours.length, upstream.length, 'count');
      const oursById = new Map(ours.map((item) => [(item as { id: string }).id, item]));
      const differences: string[] = [];
      for (const item of upstream) {
        const { id, name } = item as { id: string; name?: string };
        const mine = oursById.get(id);
        if (mine === undefined) differences.push(`missing ${id}`);
        else diffValues(item, mine, name ?? id, differences);
      }
      const unexplained = differences.filter((line) => !explained.some(({ pattern }) => pattern.test(line)));
      assert.deepEqual(unexplained, []);
    });
  }

  it("keeps an identity's service config overrides", async () => {
    const { ids } = recordedSecrets();
    const reply = await imported.app.call({
      method: 'GET',
      url: `/edge/management/v1/identities/${ids.client}/service-configs`,
      headers: { 'zt-session': token },
    });
    assert.deepEqual(data(reply.body), data(answers['service-configs-of:client']));
  });

  it("derives each identity's services from the policies as upstream did", async () => {
    const { ids } = recordedSecrets();
    for (const name of ['client', 'host', 'pw-user']) {
      const reply = await imported.app.call({
        method: 'GET',
        url: `/edge/management/v1/identities/${ids[name]}/services?limit=500`,
        headers: { 'zt-session': token },
      });
      const names = (list: Json[]) => list.map((service) => (service as { name: string }).name).sort();
      assert.deepEqual(names(data(reply.body)), names(data(answers[`services-of:${name}`])), name);
    }
  });
});
