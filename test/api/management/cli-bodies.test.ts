// Request bodies exactly as the `ziti` CLI (v1.1.8) sends them for `ziti edge create …` and `ziti edge update …`,
// captured from the binary: nulls for unset lists and maps, Go's capitalised keys in OS posture checks.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { createEntity, readEntity } from '../../support/factories.js';
import { MANAGEMENT as base } from '../../support/api-paths.js';

type Entity = Record<string, unknown>;

describe('bodies the ziti CLI sends', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  const create = async (collection: string, body: string): Promise<Entity> => {
    const result = await t.call({
      method: 'POST',
      url: `${base}/${collection}`,
      token,
      headers: { 'content-type': 'application/json' },
      payload: body,
    });
    assert.equal(result.status, 201, `${collection}: ${result.text}`);
    return detail(collection, (result.body as { data: { id: string } }).data.id);
  };
  const detail = (collection: string, id: string) => readEntity(t, token, collection, id);

  it('create identity, service, config, config type and the three policy kinds', async () => {
    const identity = await create(
      'identities',
      '{"appData":null,"authPolicyId":"default","defaultHostingCost":0,"enrollment":{"ott":true},"isAdmin":false,"name":"id1","roleAttributes":null,"serviceHostingCosts":{},"serviceHostingPrecedences":{},"tags":{},"type":"Default"}',
    );
    assert.deepEqual([identity.roleAttributes, identity.appData, identity.externalId], [null, {}, null]);
    const service = await create(
      'services',
      '{"configs":null,"encryptionRequired":true,"maxIdleTimeMillis":0,"name":"svc1","roleAttributes":null,"tags":{}}',
    );
    assert.deepEqual([service.configs, service.terminatorStrategy], [[], 'smartrouting']);
    await create('config-types', '{"name":"ct1","tags":{}}');
    await create(
      'configs',
      '{"configTypeId":"g7cIWbcGg","data":{"addresses":["a"],"portRanges":[{"high":80,"low":80}],"protocols":["tcp"]},"name":"cfg1","tags":{}}',
    );
    await create(
      'service-policies',
      '{"identityRoles":["#all"],"name":"sp1","postureCheckRoles":[],"semantic":"AllOf","serviceRoles":["#s"],"tags":{},"type":"Dial"}',
    );
    await create(
      'edge-router-policies',
      '{"edgeRouterRoles":["#all"],"identityRoles":["#all"],"name":"erp1","semantic":"AllOf","tags":{}}',
    );
    await create(
      'service-edge-router-policies',
      '{"edgeRouterRoles":["#all"],"name":"serp1","semantic":"AllOf","serviceRoles":["#all"],"tags":{}}',
    );
  });

  it('create edge router, transit router, terminator, auth policy and enrollment', async () => {
    const router = await create(
      'edge-routers',
      '{"appData":null,"cost":0,"disabled":false,"isTunnelerEnabled":false,"name":"er1","noTraversal":false,"roleAttributes":null,"tags":{}}',
    );
    await create('transit-routers', '{"cost":0,"disabled":false,"name":"tr1","noTraversal":false,"tags":{}}');
    const service = await createEntity(t, token, 'services', { name: 'terminated', encryptionRequired: true });
    const terminator = await create(
      'terminators',
      JSON.stringify({
        address: 'tcp:localhost:80',
        binding: 'edge_transport',
        identity: '',
        router: router.id,
        service,
        tags: {},
      }),
    );
    assert.equal(terminator.binding, 'edge_transport');
    const policy = await create(
      'auth-policies',
      '{"name":"ap1","primary":{"cert":{"allowExpiredCerts":false,"allowed":false},"extJwt":{"allowed":false,"allowedSigners":[]},"updb":{"allowed":false,"lockoutDurationMinutes":0,"maxAttempts":0,"minPasswordLength":5,"requireMixedCase":false,"requireNumberChar":false,"requireSpecialChar":false}},"secondary":{"requireTotp":false},"tags":{}}\n',
    );
    assert.equal((policy.secondary as Entity).requireTotp, false);
    const identity = await createEntity(t, token, 'identities', { name: 'to-enroll', type: 'User', isAdmin: false });
    const expiresAt = new Date(t.clock().getTime() + 3_600_000).toISOString();
    await create('enrollments', `{"expiresAt":"${expiresAt}","identityId":"${identity}","method":"ott"}\n`);
  });

  it('create posture checks of each type, the OS check with Go-cased keys', async () => {
    const os = await create(
      'posture-checks',
      '{"name":"pc2","operatingSystems":[{"Type":"Windows","Versions":["10.0.0"]}],"roleAttributes":null,"tags":{},"typeId":"OS"}',
    );
    assert.deepEqual(os.operatingSystems, [{ type: 'Windows', versions: ['10.0.0'] }]);
    const mfa = await create(
      'posture-checks',
      '{"ignoreLegacyEndpoints":false,"name":"pc1","promptOnUnlock":false,"promptOnWake":false,"roleAttributes":null,"tags":{},"timeoutSeconds":-1,"typeId":"MFA"}',
    );
    assert.deepEqual([mfa.timeoutSeconds, mfa.promptOnUnlock], [-1, false]);
    await create(
      'posture-checks',
      '{"macAddresses":["aabbccddeeff"],"name":"pc3","roleAttributes":null,"tags":{},"typeId":"MAC"}',
    );
    await create(
      'posture-checks',
      '{"domains":["example.com"],"name":"pc4","roleAttributes":null,"tags":{},"typeId":"DOMAIN"}',
    );
    await create(
      'posture-checks',
      '{"name":"pc5","process":{"osType":"Windows","path":"C:\\\\x.exe"},"roleAttributes":null,"tags":{},"typeId":"PROCESS"}',
    );
  });

  it('update sends only the flags given, false included', async () => {
    const id = await createEntity(t, token, 'edge-routers', {
      name: 'er-update',
      disabled: true,
      roleAttributes: ['a'],
    });
    for (const body of ['{"disabled":false}', '{"roleAttributes":["b1"]}']) {
      const result = await t.call({
        method: 'PATCH',
        url: `${base}/edge-routers/${id}`,
        token,
        headers: { 'content-type': 'application/json' },
        payload: body,
      });
      assert.equal(result.status, 200, result.text);
    }
    const router = await detail('edge-routers', id);
    assert.deepEqual([router.disabled, router.roleAttributes], [false, ['b1']]);
  });
});
