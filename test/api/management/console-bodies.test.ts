// Request bodies as the Ziti Admin Console sends them: each form's model with every field (unset ones as "", [],
// {} or its default), POST to create, then an edit that sends the model filled from the entity's own detail
// (PATCH, or PUT for CAs and auth policies), each followed by the console's read-back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import {
  createEntity,
  createIdentity,
  createService,
  createTransitRouter,
  readEntity,
} from '../../support/factories.js';
import { createTestCa } from '../../support/third-party-ca.js';
import { MANAGEMENT as base } from '../../support/api-paths.js';

type Entity = Record<string, unknown>;

/** The console's save model: its own keys only, each taken from the form data (the entity's detail on edit). */
const modelFrom = (model: Entity, detail: Entity): Entity =>
  Object.fromEntries(Object.keys(model).map((key) => [key, detail[key]]));

describe('bodies the Ziti Admin Console sends', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  const detail = (collection: string, id: string) => readEntity(t, token, collection, id);
  const write = async (method: 'PATCH' | 'PUT', collection: string, id: string, payload: Entity) => {
    const result = await t.call({ method, url: `${base}/${collection}/${id}`, token, payload });
    assert.equal(result.status, 200, `${method} ${collection}: ${result.text}`);
  };

  /** Create with the form model, read back, edit with the model filled from the detail, read back again. */
  async function roundTrip(
    collection: string,
    model: Entity,
    edit: 'PATCH' | 'PUT' = 'PATCH',
    toModel = modelFrom,
  ): Promise<[Entity, Entity]> {
    const id = await createEntity(t, token, collection, model);
    const created = await detail(collection, id);
    await write(edit, collection, id, toModel(model, created));
    return [created, await detail(collection, id)];
  }

  describe('identities', () => {
    const identityModel = (name: string, extra: Entity = {}): Entity => ({
      name,
      type: 'Device',
      appData: {},
      isAdmin: false,
      roleAttributes: [],
      authPolicyId: 'default',
      externalId: '',
      defaultHostingCost: 0,
      defaultHostingPrecedence: 'default',
      tags: {},
      enrollment: { ott: true },
      ...extra,
    });
    // On edit the console sends the type's id and leaves the enrollment out.
    const editModel = (model: Entity, found: Entity): Entity => {
      const { enrollment: _enrollment, ...rest } = modelFrom(model, found);
      return { ...rest, type: (found.type as { id: string }).id };
    };

    it('creates any number of identities with a blank externalId, stored as none', async () => {
      for (const externalId of ['', '', '   ']) {
        const [created, edited] = await roundTrip(
          'identities',
          identityModel(`console-${Math.random()}`, { externalId }),
          'PATCH',
          editModel,
        );
        assert.equal(created.externalId, null);
        assert.equal(edited.externalId, null);
        assert.ok((created.enrollment as { ott?: unknown }).ott, 'the ott enrollment was made');
      }
    });

    it('clears an externalId replaced or patched with a blank one', async () => {
      for (const method of ['PUT', 'PATCH'] as const) {
        const id = await createIdentity(t, token, { externalId: `ext-${method}` });
        await write(method, 'identities', id, {
          name: `blank-ext-${method}`,
          type: 'Default',
          isAdmin: false,
          externalId: ' ',
        });
        assert.equal((await detail('identities', id)).externalId, null);
      }
    });

    it('binds an identity created, replaced or patched with an empty authPolicyId to the default policy', async () => {
      const policy = await createEntity(t, token, 'auth-policies', {
        name: 'console-policy',
        primary: {
          cert: { allowed: true, allowExpiredCerts: true },
          extJwt: { allowed: false, allowedSigners: [] },
          updb: {
            allowed: true,
            lockoutDurationMinutes: 0,
            maxAttempts: 5,
            minPasswordLength: 5,
            requireMixedCase: false,
            requireNumberChar: false,
            requireSpecialChar: false,
          },
        },
        secondary: { requireTotp: false },
      });
      const [created] = await roundTrip(
        'identities',
        identityModel('empty-policy', { authPolicyId: '' }),
        'PATCH',
        editModel,
      );
      assert.equal(created.authPolicyId, 'default');
      for (const method of ['PUT', 'PATCH'] as const) {
        const id = await createIdentity(t, token, { authPolicyId: policy });
        await write(method, 'identities', id, {
          name: `policy-${method}`,
          type: 'Default',
          isAdmin: false,
          authPolicyId: '',
        });
        const found = await detail('identities', id);
        assert.equal(found.authPolicyId, 'default');
        assert.equal((found.authPolicy as { id: string }).id, 'default');
      }
      const missing = await t.call({
        method: 'POST',
        url: `${base}/identities`,
        token,
        payload: { name: 'no-policy-field', type: 'User', isAdmin: false },
      });
      assert.equal(missing.status, 201);
    });

    it('reads back what the edit sent, including a blank hosting precedence as the default', async () => {
      const [, edited] = await roundTrip(
        'identities',
        identityModel('console-edit', { roleAttributes: ['b', 'a'], isAdmin: true, defaultHostingPrecedence: '' }),
        'PATCH',
        editModel,
      );
      assert.deepEqual(
        [edited.roleAttributes, edited.isAdmin, edited.defaultHostingPrecedence, edited.typeId],
        [['a', 'b'], true, 'default', 'Default'],
      );
    });
  });

  it('services: a blank terminator strategy is the default one', async () => {
    const model = {
      name: 'console-service',
      encryptionRequired: true,
      terminatorStrategy: '',
      roleAttributes: [],
      tags: {},
      configs: [],
      maxIdleTimeMillis: 0,
    };
    const [created, edited] = await roundTrip('services', model);
    for (const service of [created, edited]) {
      assert.deepEqual(
        [service.terminatorStrategy, service.encryptionRequired, service.configs, service.roleAttributes],
        ['smartrouting', true, [], null],
      );
    }
  });

  it('configs and config types: an empty schema is stored as none', async () => {
    const [type] = await roundTrip('config-types', { name: 'console-type', id: '', schema: {}, tags: {} });
    assert.equal(type.schema, null);
    const [config, edited] = await roundTrip('configs', {
      name: 'console-config',
      data: { a: 1 },
      configTypeId: type.id,
      tags: {},
    });
    assert.deepEqual([config.data, edited.data], [{ a: 1 }, { a: 1 }]);
  });

  it('the three policy kinds, with empty role lists', async () => {
    const models: Record<string, Entity> = {
      'service-policies': {
        name: 'console-sp',
        serviceRoles: [],
        identityRoles: [],
        postureCheckRoles: [],
        semantic: 'AnyOf',
        type: 'Bind',
        tags: {},
      },
      'edge-router-policies': {
        name: 'console-erp',
        edgeRouterRoles: [],
        identityRoles: ['#all'],
        semantic: 'AnyOf',
        tags: {},
      },
      'service-edge-router-policies': {
        name: 'console-serp',
        edgeRouterRoles: [],
        serviceRoles: [],
        semantic: 'AnyOf',
        tags: {},
      },
    };
    for (const [collection, model] of Object.entries(models)) {
      const [created, edited] = await roundTrip(collection, model);
      for (const policy of [created, edited]) assert.equal(policy.semantic, 'AnyOf', collection);
    }
  });

  it('edge routers and transit routers', async () => {
    const [router, edited] = await roundTrip('edge-routers', {
      name: 'console-er',
      roleAttributes: [],
      appData: {},
      isTunnelerEnabled: true,
      noTraversal: false,
      cost: 0,
      tags: {},
    });
    assert.deepEqual([router.isTunnelerEnabled, edited.isTunnelerEnabled, edited.roleAttributes], [true, true, null]);
    await roundTrip('transit-routers', { name: 'console-tr', cost: 0, noTraversal: false, disabled: false, tags: {} });
  });

  it('posture checks of every type, each sent with the fields of all types', async () => {
    const model = (typeId: string, own: Entity): Entity => ({
      name: `console-${typeId}`,
      typeId,
      semantic: 'AllOf',
      roleAttributes: [],
      domains: [],
      macAddresses: [],
      operatingSystems: [],
      processes: [{ hashes: [], osType: '', path: '', signerFingerprints: [] }],
      process: { hashes: [], osType: '', path: '', signerFingerprint: '' },
      promptOnWake: false,
      promptOnUnlock: false,
      timeoutSeconds: 0,
      tags: {},
      ...own,
    });
    const checks: [string, Entity][] = [
      ['MFA', { promptOnUnlock: true }],
      ['DOMAIN', { domains: ['example.com'] }],
      ['MAC', { macAddresses: ['AA:BB:CC:DD:EE:FF'] }],
      ['OS', { operatingSystems: [{ type: 'Windows', versions: ['>=10.0.0'] }] }],
      ['PROCESS', { process: { hashes: [], osType: 'Linux', path: '/bin/app', signerFingerprint: '' } }],
      ['PROCESS_MULTI', { processes: [{ hashes: [], osType: 'Linux', path: '/bin/app', signerFingerprints: [] }] }],
    ];
    for (const [typeId, own] of checks) {
      const [created, edited] = await roundTrip('posture-checks', model(typeId, own));
      assert.equal(created.typeId, typeId);
      assert.deepEqual(edited, { ...created, updatedAt: edited.updatedAt }, `${typeId}: the edit changed nothing`);
    }
  });

  it('terminators with a blank identity, secret, binding and precedence', async () => {
    const service = await createService(t, token);
    const router = await createTransitRouter(t, token);
    const model = {
      service,
      identity: '',
      router,
      binding: '',
      precedence: '',
      address: 'tcp:localhost:8080',
      cost: 0,
      identitySecret: '',
    };
    // The edit form holds the service and router it shows as ids.
    const [created, edited] = await roundTrip('terminators', model, 'PATCH', (sent, found) => ({
      ...modelFrom(sent, found),
      service: found.serviceId,
      router: found.routerId,
    }));
    for (const terminator of [created, edited]) {
      assert.deepEqual([terminator.binding, terminator.precedence, terminator.identity], ['transport', 'default', '']);
    }
  });

  it('auth policies and CAs, edited with PUT', async () => {
    const policyModel = {
      name: 'console-ap',
      id: '',
      primary: {
        cert: { allowed: false, allowExpiredCerts: false },
        extJwt: { allowed: false, allowedSigners: [] },
        updb: {
          allowed: false,
          lockoutDurationMinutes: 0,
          maxAttempts: 5,
          minPasswordLength: 5,
          requireMixedCase: false,
          requireNumberChar: false,
          requireSpecialChar: false,
        },
      },
      secondary: { requireTotp: false, requireExtJwtSigner: '' },
      tags: {},
    };
    const [policy, editedPolicy] = await roundTrip('auth-policies', policyModel, 'PUT');
    // A blank signer is none, which upstream renders by leaving the field out.
    for (const found of [policy, editedPolicy]) assert.deepEqual(found.secondary, { requireTotp: false });

    const { certPem } = await createTestCa('Console CA', t.clock());
    const caModel = {
      name: 'console-ca',
      id: '',
      isAutoCaEnrollmentEnabled: false,
      isOttCaEnrollmentEnabled: false,
      identityRoles: [],
      identityNameFormat: '',
      isAuthEnabled: false,
      certPem,
      tags: {},
      verificationToke: '',
    };
    const [ca, editedCa] = await roundTrip('cas', caModel, 'PUT');
    for (const found of [ca, editedCa]) assert.equal(found.identityNameFormat, '[caName]-[commonName]');
  });
});
