// The management entities through the generic life-cycle sequence (crud.ts), with bodies as the console and the CLI
// send them: full field sets, `""`/`null` for what is unset.
import { createTestCa } from '../../support/third-party-ca.js';
import { sequence, type Steps } from '../steps.js';
import { crud } from './crud.js';

const hour = 3_600_000;

/** The id of a built-in config type, looked up the way a client would. */
export async function builtInConfigType(s: Steps, name: string): Promise<string> {
  const reply = await s.get(`/config-types?filter=${encodeURIComponent(`name = "${name}"`)}`);
  return String(reply.data?.[0]?.id ?? `missing-${name}`);
}

const interceptConfig = { protocols: ['tcp'], addresses: ['echo.ziti'], portRanges: [{ low: 80, high: 80 }] };

export const entities = [
  crud({
    name: 'config-types',
    path: '/config-types',
    create: () => ({
      name: 'ct-one',
      schema: { type: 'object', properties: { port: { type: 'integer' } }, required: ['port'] },
      tags: {},
    }),
    update: () => ({
      name: 'ct-renamed',
      schema: { type: 'object', properties: { port: { type: 'integer' } } },
      tags: { team: 'a' },
    }),
    patch: () => ({ tags: { team: 'b' } }),
    related: ['configs'],
    invalid: () => [
      { name: 'ct-bad-schema', schema: { type: 7 } },
      { name: 'ct-null-schema', schema: null },
    ],
  }),
  crud({
    name: 'configs',
    path: '/configs',
    setup: async (s) => ({
      type: await s.create('config-type', '/config-types', {
        name: 'cfg-type',
        schema: { type: 'object', properties: { port: { type: 'integer' } }, required: ['port'] },
      }),
      intercept: await builtInConfigType(s, 'intercept.v1'),
    }),
    create: (ids) => ({ name: 'cfg-one', configTypeId: ids.type, data: { port: 80 }, tags: {} }),
    update: (ids) => ({ name: 'cfg-renamed', configTypeId: ids.type, data: { port: 81 }, tags: {} }),
    patch: () => ({ data: { port: 82 } }),
    related: ['services'],
    invalid: (ids) => [
      { name: 'cfg-bad-data', configTypeId: ids.type, data: { port: 'eighty' } },
      { name: 'cfg-no-type', configTypeId: 'no-such-type', data: { port: 80 } },
      { name: 'cfg-intercept-bad', configTypeId: ids.intercept, data: { protocols: ['sctp'] } },
      { name: 'cfg-intercept', configTypeId: ids.intercept, data: interceptConfig },
    ],
  }),
  crud({
    name: 'services',
    path: '/services',
    setup: async (s) => ({
      config: await s.create('intercept-config', '/configs', {
        name: 'svc-intercept',
        configTypeId: await builtInConfigType(s, 'intercept.v1'),
        data: interceptConfig,
      }),
    }),
    create: (ids) => ({
      name: 'svc-one',
      encryptionRequired: true,
      roleAttributes: ['web'],
      configs: [ids.config],
      terminatorStrategy: 'smartrouting',
      maxIdleTimeMillis: 0,
      tags: {},
    }),
    update: () => ({
      name: 'svc-renamed',
      encryptionRequired: true,
      roleAttributes: ['web', 'db'],
      configs: [],
      terminatorStrategy: 'weighted',
      tags: {},
    }),
    patch: () => ({ roleAttributes: ['db'] }),
    related: [
      'configs',
      'edge-routers',
      'identities',
      'service-edge-router-policies',
      'service-policies',
      'terminators',
    ],
    invalid: () => [
      { name: 'svc-bad-config', encryptionRequired: true, configs: ['no-such-config'] },
      { name: 'svc-no-encryption' },
    ],
  }),
  crud({
    name: 'edge-routers',
    path: '/edge-routers',
    create: () => ({
      name: 'er-one',
      roleAttributes: ['east'],
      isTunnelerEnabled: false,
      cost: 10,
      noTraversal: false,
      disabled: false,
      appData: {},
      tags: {},
    }),
    update: () => ({
      name: 'er-renamed',
      roleAttributes: [],
      isTunnelerEnabled: false,
      cost: 5,
      noTraversal: true,
      disabled: false,
      appData: { site: 'x' },
      tags: {},
    }),
    patch: () => ({ cost: 1 }),
    related: ['edge-router-policies', 'identities', 'service-edge-router-policies', 'services'],
    invalid: () => [{ name: 'er-cost', cost: 70000 }],
    more: async (s, id) => {
      await s.post(`/edge-routers/${id}/re-enroll`);
      await s.post('/edge-routers/no-such-id/re-enroll');
      // Live-state symbols: the router never connected to either controller.
      await s.get(
        `/edge-routers?filter=${encodeURIComponent('online = false and connected != true')}&sort=${encodeURIComponent('connected desc')}`,
      );
      await s.get(`/edge-routers?filter=${encodeURIComponent('connected = true or online = null')}`);
      await s.get(`/edge-routers?filter=${encodeURIComponent('connected = "yes"')}`);
    },
  }),
  crud({
    name: 'routers',
    path: '/routers',
    create: () => ({ name: 'router-one', cost: 3, noTraversal: false, disabled: false, tags: {} }),
    update: () => ({ name: 'router-renamed', cost: 4, noTraversal: true, disabled: false, tags: {} }),
    patch: () => ({ disabled: true }),
  }),
  crud({
    name: 'transit-routers',
    path: '/transit-routers',
    create: () => ({ name: 'tr-one', cost: 3, noTraversal: false, disabled: false, tags: {} }),
    update: () => ({ name: 'tr-renamed', cost: 4, noTraversal: false, disabled: false, tags: {} }),
    patch: () => ({ cost: 9 }),
  }),
  crud({
    name: 'service-policies',
    path: '/service-policies',
    create: () => ({
      name: 'sp-one',
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles: ['#a'],
      serviceRoles: ['#web'],
      postureCheckRoles: [],
      tags: {},
    }),
    update: () => ({
      name: 'sp-renamed',
      type: 'Bind',
      semantic: 'AnyOf',
      identityRoles: ['#all'],
      serviceRoles: ['#web', '#db'],
      postureCheckRoles: ['#pc'],
      tags: {},
    }),
    patch: () => ({ semantic: 'AllOf' }),
    related: ['identities', 'posture-checks', 'services'],
    more: async (s) => {
      await s.get(
        `/service-policies?filter=${encodeURIComponent('anyOf(identities) = "no-such-identity" or count(services) >= 0')}`,
      );
      await s.get(`/service-policies?filter=${encodeURIComponent('isEmpty(identities) and isEmpty(services)')}`);
      await s.get(`/service-policies?filter=${encodeURIComponent('identities = "x"')}`);
    },
    invalid: () => [
      { name: 'sp-all-mixed', type: 'Dial', semantic: 'AllOf', identityRoles: ['#all', '#a'] },
      { name: 'sp-unknown-id', type: 'Dial', semantic: 'AllOf', serviceRoles: ['@no-such-id'] },
      { name: 'sp-bad-type', type: 'Both', semantic: 'AllOf' },
      { name: 'sp-bad-semantic', type: 'Dial', semantic: 'SomeOf' },
    ],
  }),
  crud({
    name: 'edge-router-policies',
    path: '/edge-router-policies',
    create: () => ({ name: 'erp-one', semantic: 'AnyOf', identityRoles: ['#a'], edgeRouterRoles: ['#east'], tags: {} }),
    update: () => ({
      name: 'erp-renamed',
      semantic: 'AllOf',
      identityRoles: ['#all'],
      edgeRouterRoles: ['#all'],
      tags: {},
    }),
    patch: () => ({ edgeRouterRoles: ['#west'] }),
    related: ['edge-routers', 'identities'],
  }),
  crud({
    name: 'service-edge-router-policies',
    path: '/service-edge-router-policies',
    create: () => ({
      name: 'serp-one',
      semantic: 'AllOf',
      serviceRoles: ['#web'],
      edgeRouterRoles: ['#east'],
      tags: {},
    }),
    update: () => ({
      name: 'serp-renamed',
      semantic: 'AnyOf',
      serviceRoles: ['#all'],
      edgeRouterRoles: ['#all'],
      tags: {},
    }),
    patch: () => ({ serviceRoles: ['#db'] }),
    related: ['edge-routers', 'services'],
  }),
  crud({
    name: 'posture-checks',
    path: '/posture-checks',
    create: () => ({
      name: 'pc-os',
      typeId: 'OS',
      roleAttributes: ['pc'],
      operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041'] }],
      tags: {},
    }),
    update: () => ({
      name: 'pc-os-renamed',
      typeId: 'OS',
      roleAttributes: [],
      operatingSystems: [{ type: 'Linux', versions: [] }],
      tags: {},
    }),
    patch: () => ({ typeId: 'OS', roleAttributes: ['pc2'] }),
    invalid: () => [
      { name: 'pc-bad-type', typeId: 'NOPE' },
      { name: 'pc-mac-missing', typeId: 'MAC' },
    ],
    more: async (s) => {
      await s.post('/posture-checks', { body: { name: 'pc-mac', typeId: 'MAC', macAddresses: ['00:11:22:33:44:55'] } });
      await s.post('/posture-checks', { body: { name: 'pc-domain', typeId: 'DOMAIN', domains: ['example.com'] } });
      await s.post('/posture-checks', {
        body: {
          name: 'pc-mfa',
          typeId: 'MFA',
          timeoutSeconds: 600,
          promptOnWake: true,
          promptOnUnlock: false,
          ignoreLegacyEndpoints: false,
        },
      });
      await s.post('/posture-checks', {
        body: {
          name: 'pc-process',
          typeId: 'PROCESS',
          process: { osType: 'Linux', path: '/usr/bin/true', hashes: [], signerFingerprint: '' },
        },
      });
      await s.post('/posture-checks', {
        body: {
          name: 'pc-multi',
          typeId: 'PROCESS_MULTI',
          semantic: 'AllOf',
          processes: [{ osType: 'Linux', path: '/bin/sh', hashes: [], signerFingerprints: [] }],
        },
      });
      await s.get('/posture-checks?sort=name');
    },
  }),
  crud({
    name: 'auth-policies',
    path: '/auth-policies',
    create: () => ({ name: 'ap-one', ...authPolicyBody(5) }),
    update: () => ({ name: 'ap-renamed', ...authPolicyBody(8) }),
    patch: () => ({ secondary: { requireTotp: true, requireExtJwtSigner: null } }),
  }),
  crud({
    name: 'authenticators',
    path: '/authenticators',
    setup: async (s) => ({
      identity: await s.create('auth-identity', '/identities', { name: 'auth-identity', type: 'User', isAdmin: false }),
    }),
    create: (ids) => ({
      method: 'updb',
      identityId: ids.identity!,
      username: 'auth-user',
      password: 'Auth-Password-1',
    }),
    update: () => ({ username: 'auth-user-2', password: 'Auth-Password-2', tags: {} }),
    patch: () => ({ username: 'auth-user-3' }),
    invalid: (ids) => [
      { method: 'updb', identityId: ids.identity!, username: 'x', password: 'y' },
      { method: 'nope', identityId: ids.identity! },
    ],
    more: async (s, id) => {
      await s.post(`/authenticators/${id}/re-enroll`);
      await s.get(`/identities/${(await s.get(`/authenticators/${id}`)).data?.identityId ?? 'unknown'}/authenticators`);
      // A session the authenticator opened ends when it is re-enrolled, at once (upstream's authenticator DeleteById).
      await s.client.login('auth-user', 'auth-user-3', 'Auth-Password-2');
      await s.as('auth-user').client.get('/current-identity');
      await s.post(`/authenticators/${id}/re-enroll`, {
        body: { expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
      });
      await s.as('auth-user').client.get('/current-identity');
    },
  }),
  crud({
    name: 'cas',
    path: '/cas',
    setup: async () => ({
      certPem: (await createTestCa('diff-ca', new Date())).certPem,
      other: (await createTestCa('diff-ca-2', new Date())).certPem,
    }),
    create: (ids) => ({
      ...caBody('ca-one', ids.certPem!),
      identityNameFormat: '[caName]-[commonName]',
      externalIdClaim: null,
    }),
    update: () => ({
      name: 'ca-renamed',
      identityRoles: [],
      isAuthEnabled: false,
      isAutoCaEnrollmentEnabled: false,
      isOttCaEnrollmentEnabled: true,
      identityNameFormat: '',
      tags: {},
    }),
    patch: () => ({ isAuthEnabled: true }),
    invalid: (ids) => [caBody('ca-not-pem', 'not a certificate'), caBody('ca-other', ids.other!)],
    more: async (s, id) => {
      await s.get(`/cas/${id}/jwt`, { headers: { accept: '*/*' } });
      await s.post(`/cas/${id}/verify`, { body: 'not a certificate', contentType: 'text/plain' });
      // Every route also consumes application/json (go-openapi adds the API default): the JSON body is decoded.
      await s.post(`/cas/${id}/verify`, { body: { certificate: 'not a certificate' } });
      await s.post(`/cas/${id}/verify`, { body: 'certificate=x', contentType: 'application/x-www-form-urlencoded' });
    },
  }),
  crud({
    name: 'terminators',
    path: '/terminators',
    setup: async (s) => ({
      service: await s.create('term-service', '/services', { name: 'term-service', encryptionRequired: true }),
      router: await s.create('term-router', '/transit-routers', { name: 'term-router' }),
    }),
    create: (ids) => ({
      service: ids.service!,
      router: ids.router!,
      address: 'tcp:127.0.0.1:8080',
      binding: 'transport',
      cost: 0,
      precedence: 'default',
      tags: {},
    }),
    update: (ids) => ({
      service: ids.service!,
      router: ids.router!,
      address: 'tcp:127.0.0.1:8081',
      binding: 'transport',
      cost: 5,
      precedence: 'required',
      tags: {},
    }),
    patch: () => ({ cost: 7 }),
    invalid: (ids) => [{ service: 'no-such-service', router: ids.router!, address: 'tcp:x:1', binding: 'transport' }],
  }),
  crud({
    name: 'enrollments',
    path: '/enrollments',
    setup: async (s) => ({
      identity: await s.create('enr-identity', '/identities', { name: 'enr-identity', type: 'User', isAdmin: false }),
    }),
    create: (ids) => ({
      identityId: ids.identity!,
      method: 'ott',
      expiresAt: new Date(Date.now() + hour).toISOString(),
    }),
    invalid: (ids) => [
      { identityId: ids.identity!, method: 'updb', expiresAt: new Date(Date.now() + hour).toISOString() },
      { identityId: ids.identity!, method: 'ottca', expiresAt: new Date(Date.now() + hour).toISOString() },
      { identityId: 'no-such-identity', method: 'ott', expiresAt: new Date(Date.now() + hour).toISOString() },
      { identityId: ids.identity!, method: 'ott', expiresAt: 'tomorrow' },
    ],
    more: async (s, id) => {
      await s.post(`/enrollments/${id}/refresh`, {
        body: { expiresAt: new Date(Date.now() + 2 * hour).toISOString() },
      });
      await s.post(`/enrollments/${id}/refresh`, { body: { expiresAt: new Date(Date.now() - hour).toISOString() } });
      await s.post('/enrollments/no-such-id/refresh', {
        body: { expiresAt: new Date(Date.now() + hour).toISOString() },
      });
    },
  }),
  crud({
    name: 'external-jwt-signers',
    path: '/external-jwt-signers',
    create: () => ({
      name: 'ejs-one',
      issuer: 'https://issuer.example',
      audience: 'ziti',
      enabled: true,
      jwksEndpoint: 'https://issuer.example/jwks',
      claimsProperty: 'sub',
      useExternalId: false,
      externalAuthUrl: null,
      tags: {},
    }),
    update: () => ({
      name: 'ejs-renamed',
      issuer: 'https://issuer.example',
      audience: 'ziti',
      enabled: false,
      jwksEndpoint: 'https://issuer.example/jwks',
      tags: {},
    }),
    patch: () => ({ enabled: true }),
    invalid: () => [{ name: 'ejs-no-key', issuer: 'https://other.example', audience: 'ziti', enabled: true }],
  }),
];

/** Configs and config types something still uses: what deleting them does. */
export const inUse = [
  sequence('configs-in-use', async (s) => {
    const type = await s.create('use-type', '/config-types', { name: 'use-type', schema: { type: 'object' } });
    const config = await s.create('use-config', '/configs', {
      name: 'use-config',
      configTypeId: type,
      data: { port: 1 },
    });
    const service = await s.create('use-service', '/services', {
      name: 'use-service',
      encryptionRequired: true,
      configs: [config],
    });
    await s.delete(`/config-types/${type}`);
    await s.delete(`/configs/${config}`);
    await s.get(`/services/${service}`);
    await s.get(`/configs/${config}/services`);
    await s.delete(`/services/${service}`);
    await s.delete(`/configs/${config}`);
    await s.delete(`/config-types/${type}`);
  }),
];

function authPolicyBody(minPasswordLength: number) {
  return {
    primary: {
      cert: { allowed: true, allowExpiredCerts: false },
      extJwt: { allowed: false, allowedSigners: [] },
      updb: {
        allowed: true,
        lockoutDurationMinutes: 0,
        maxAttempts: 0,
        minPasswordLength,
        requireMixedCase: false,
        requireNumberChar: false,
        requireSpecialChar: false,
      },
    },
    secondary: { requireTotp: false, requireExtJwtSigner: null },
    tags: {},
  };
}

function caBody(name: string, certPem: string) {
  return {
    name,
    certPem,
    identityRoles: ['from-ca'],
    isAuthEnabled: true,
    isAutoCaEnrollmentEnabled: true,
    isOttCaEnrollmentEnabled: true,
    tags: {},
  };
}
