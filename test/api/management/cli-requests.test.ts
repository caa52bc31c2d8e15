// The exact request shapes upstream's `ziti` CLI (v1.1.8) sends, as recorded by `npm run test:interop`: full bodies
// with `appData: null` and `roleAttributes: null`, the Default identity type, PATCH bodies of one or two fields,
// DELETE with a JSON content type and no body, and list filters with `+` for spaces and `id = … or name = …`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { MANAGEMENT as API } from '../../support/api-paths.js';

describe('requests as the ziti CLI sends them', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  const send = async (method: 'POST' | 'PATCH' | 'DELETE', path: string, payload?: unknown) => {
    const headers = { 'content-type': 'application/json' };
    const result = await t.call({
      method,
      url: `${API}/${path}`,
      token,
      headers,
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
    assert.ok(result.status === 200 || result.status === 201, `${method} ${path}: ${result.status} ${result.text}`);
    return (result.body as { data: { id?: string } }).data;
  };
  const listNames = async (path: string, rawFilter: string) => {
    const result = await t.call({ method: 'GET', url: `${API}/${path}?filter=${rawFilter}`, token });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Array<{ name: string }> }).data.map((entity) => entity.name).sort();
  };

  it('creates identities with appData null and the Default type, enrolled by ott or updb', async () => {
    const shared = {
      appData: null,
      authPolicyId: 'default',
      defaultHostingCost: 0,
      isAdmin: false,
      serviceHostingCosts: {},
      serviceHostingPrecedences: {},
      tags: {},
      type: 'Default',
    };
    const device = await send('POST', 'identities', {
      ...shared,
      enrollment: { ott: true },
      name: 'cli-device',
      roleAttributes: ['cli-clients'],
    });
    await send('POST', 'identities', {
      ...shared,
      enrollment: { updb: 'cli-user' },
      name: 'cli-user',
      roleAttributes: ['cli-clients'],
    });
    await send('PATCH', `identities/${device.id}`, {
      name: 'cli-device-renamed',
      roleAttributes: ['cli-clients', 'cli-hosts'],
    });
    assert.deepEqual(await listNames('identities', 'anyOf%28roleAttributes%29+%3D+%22cli-clients%22'), [
      'cli-device-renamed',
      'cli-user',
    ]);
    assert.deepEqual(await listNames('identities', 'id+%3D+%22cli-user%22+or+name%3D%22cli-user%22'), ['cli-user']);
    await send('DELETE', `identities/${device.id}`);
  });

  it('creates an edge router with appData null and posture checks with roleAttributes null', async () => {
    const router = await send('POST', 'edge-routers', {
      appData: null,
      cost: 0,
      disabled: false,
      isTunnelerEnabled: true,
      name: 'cli-er',
      noTraversal: false,
      roleAttributes: ['public'],
      tags: {},
    });
    await send('PATCH', `edge-routers/${router.id}`, { cost: 7 });
    await send('POST', 'posture-checks', {
      macAddresses: ['001122334455'],
      name: 'cli-mac',
      roleAttributes: null,
      tags: {},
      typeId: 'MAC',
    });
    await send('POST', 'posture-checks', {
      domains: ['corp.example'],
      name: 'cli-domain',
      roleAttributes: null,
      tags: {},
      typeId: 'DOMAIN',
    });
    assert.deepEqual(await listNames('posture-checks', 'name+contains+%22cli-%22'), ['cli-domain', 'cli-mac']);
    await send('DELETE', `edge-routers/${router.id}`);
  });

  it("creates configs and services in the CLI's key order and patches single fields", async () => {
    const type = await send('POST', 'config-types', {
      name: 'cli-ct',
      schema: { properties: { port: { type: 'integer' } }, required: ['port'], type: 'object' },
      tags: {},
    });
    const config = await send('POST', 'configs', {
      configTypeId: type.id,
      data: { port: 80 },
      name: 'cli-cfg',
      tags: {},
    });
    await send('PATCH', `configs/${config.id}`, { data: { port: 81 } });
    const service = await send('POST', 'services', {
      configs: [config.id],
      encryptionRequired: true,
      maxIdleTimeMillis: 0,
      name: 'cli-svc',
      roleAttributes: ['web'],
      tags: {},
    });
    await send('PATCH', `services/${service.id}`, { roleAttributes: ['web', 'db'] });
    const policy = await send('POST', 'service-policies', {
      identityRoles: ['#cli-hosts'],
      name: 'cli-bind',
      postureCheckRoles: [],
      semantic: 'AnyOf',
      serviceRoles: [`@${service.id}`],
      tags: {},
      type: 'Bind',
    });
    await send('PATCH', `service-policies/${policy.id}`, { identityRoles: ['#cli-clients', '#more'] });
    for (const path of [
      `service-policies/${policy.id}`,
      `services/${service.id}`,
      `configs/${config.id}`,
      `config-types/${type.id}`,
    ])
      await send('DELETE', path);
  });
});
