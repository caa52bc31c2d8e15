// Records the migration fixtures from a real upstream v1.1.8 controller (run by hand: `npx tsx
// test/migrate/record-fixtures.ts`; needs the binary, see docs/upstream-peer.md): builds a small network of every
// entity type through upstream's REST API, records its answers for every list, stops it and keeps its ctrl.db
// (gzipped), its PKI and the secrets the tests log in with. test/migrate/*.test.ts import the database and compare.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startUpstream, upstreamBinary, zitiEnv } from '../../scripts/upstream.js';
import { routerConfig } from '../interop/router-config.js';
import { createCsr, createTestCa } from '../support/third-party-ca.js';
import { secretOf, totpCode } from '../support/mfa.js';
import { fixtureLists, upstreamClient, type RecordedSecrets, type UpstreamClient } from './upstream-client.js';

const out = new URL('./fixtures/v1.1.8/', import.meta.url).pathname;

async function main(): Promise<void> {
  const upstream = await startUpstream({ keepHome: true, password: 'Admin-Password-1' });
  const client = upstreamClient(upstream.baseUrl);
  try {
    const admin = await client.login(upstream.username, upstream.password);
    const secrets = await buildNetwork(client, admin);
    enrollRouter(upstream.port, secrets.pendingJwts.er1 ?? '');
    delete secrets.pendingJwts.er1;
    // A login with client info: upstream keeps the SDK's envInfo and sdkInfo on the identity.
    await client.json('POST', '/edge/client/v1/authenticate?method=password', undefined, {
      username: 'pw-user',
      password: secrets.password,
      envInfo: { arch: 'amd64', os: 'linux', osRelease: '6.1.0', osVersion: '#1 SMP', domain: 'corp', hostname: 'pc1' },
      sdkInfo: {
        appId: 'app',
        appVersion: '1.0',
        branch: 'main',
        revision: 'abc',
        type: 'ziti-sdk-golang',
        version: '0.23.39',
      },
    });
    const answers: Record<string, unknown> = {};
    for (const path of fixtureLists) answers[path] = await client.json('GET', `/edge/management/v1${path}`, admin);
    for (const identity of ['client', 'host', 'pw-user'])
      answers[`services-of:${identity}`] = await client.json(
        'GET',
        `/edge/management/v1/identities/${secrets.ids[identity]}/services?limit=500`,
        admin,
      );
    answers['service-configs-of:client'] = await client.json(
      'GET',
      `/edge/management/v1/identities/${secrets.ids.client}/service-configs`,
      admin,
    );
    await upstream.stop();
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'ctrl.db.gz'), gzipSync(readFileSync(join(upstream.home, 'ctrl.db')), { level: 9 }));
    writeFileSync(join(out, 'answers.json'), `${JSON.stringify(answers, null, 2)}\n`);
    writeFileSync(join(out, 'secrets.json'), `${JSON.stringify(secrets, null, 2)}\n`);
    copyPki(upstream.home);
  } finally {
    await upstream.stop();
    rmSync(upstream.home, { recursive: true, force: true });
  }
}

/** `ziti router enroll` for er1 (not run): the database then holds its fingerprint and certificate as enrolled. */
function enrollRouter(port: number, jwt: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-fixture-router-'));
  try {
    writeFileSync(join(dir, 'router.jwt'), jwt);
    writeFileSync(join(dir, 'router.yml'), routerConfig(dir, `tls:127.0.0.1:${port}`, 3022));
    const enroll = spawnSync(
      upstreamBinary(),
      ['router', 'enroll', join(dir, 'router.yml'), '--jwt', join(dir, 'router.jwt')],
      {
        cwd: dir,
        env: zitiEnv(),
        encoding: 'utf8',
      },
    );
    if (enroll.status !== 0) throw new Error(`router enroll failed: ${enroll.stdout}${enroll.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The PKI the controller ran on (a throwaway test PKI made for this recording): what the import takes over. */
function copyPki(home: string): void {
  const pki = join(out, 'pki');
  mkdirSync(pki, { recursive: true });
  const files: Record<string, string> = {
    'ca.pem': 'root-ca/certs/root-ca.cert',
    'server.chain.pem': 'intermediate-ca/certs/server.chain.pem',
    'server.key': 'intermediate-ca/keys/server.key',
    'client.cert': 'intermediate-ca/certs/client.cert',
    'signing.cert': 'intermediate-ca/certs/intermediate-ca.cert',
    'signing.key': 'intermediate-ca/keys/intermediate-ca.key',
  };
  for (const [name, from] of Object.entries(files)) copyFileSync(join(home, 'pki', from), join(pki, name));
  writeFileSync(join(out, 'ctrl.yaml'), readFileSync(join(home, 'ctrl.yaml'), 'utf8').replaceAll(home, '${HOME_DIR}'));
  execFileSync('chmod', ['-R', 'go-rwx', pki]);
}

async function buildNetwork(client: UpstreamClient, admin: string): Promise<RecordedSecrets> {
  const now = new Date();
  const create = (path: string, body: unknown) => client.create(`/edge/management/v1${path}`, body, admin);
  const ids: Record<string, string> = {};
  const signerCa = await createTestCa('Signer', now);
  const thirdPartyCa = await createTestCa('Third Party', now);
  ids.signer = await create('/external-jwt-signers', {
    name: 'idp',
    certPem: signerCa.certPem,
    enabled: true,
    issuer: 'https://idp.example',
    audience: 'ziti',
    claimsProperty: 'email',
    useExternalId: true,
    kid: 'kid-1',
    externalAuthUrl: 'https://idp.example/auth',
    tags: { source: 'test' },
  });
  ids.authPolicy = await create('/auth-policies', {
    name: 'strict',
    primary: {
      cert: { allowed: true, allowExpiredCerts: false },
      extJwt: { allowed: true, allowedSigners: [ids.signer] },
      updb: {
        allowed: true,
        lockoutDurationMinutes: 5,
        maxAttempts: 3,
        minPasswordLength: 8,
        requireMixedCase: true,
        requireNumberChar: true,
        requireSpecialChar: false,
      },
    },
    secondary: { requireTotp: false, requireExtJwtSigner: null },
    tags: { tier: 'gold' },
  });
  ids.ca = await create('/cas', {
    name: 'third-party',
    certPem: thirdPartyCa.certPem,
    isAuthEnabled: true,
    isAutoCaEnrollmentEnabled: true,
    isOttCaEnrollmentEnabled: true,
    identityRoles: ['auto'],
    identityNameFormat: '[caName]-[commonName]',
    externalIdClaim: {
      location: 'COMMON_NAME',
      matcher: 'ALL',
      matcherCriteria: '',
      parser: 'NONE',
      parserCriteria: '',
      index: 0,
    },
  });
  ids.configType = await create('/config-types', {
    name: 'custom.v1',
    schema: { type: 'object', properties: { port: { type: 'integer' } } },
  });
  ids.intercept = await create('/configs', {
    name: 'echo-intercept',
    configTypeId: 'g7cIWbcGg',
    data: { protocols: ['tcp'], addresses: ['echo.ziti'], portRanges: [{ low: 80, high: 80 }] },
  });
  ids.interceptAlt = await create('/configs', {
    name: 'echo-intercept-alt',
    configTypeId: 'g7cIWbcGg',
    data: { protocols: ['tcp'], addresses: ['alt.echo.ziti'], portRanges: [{ low: 81, high: 82 }] },
  });
  ids.host = await create('/configs', {
    name: 'echo-host',
    configTypeId: 'NH5p4FpGR',
    data: { protocol: 'tcp', address: '127.0.0.1', port: 7 },
  });
  ids.custom = await create('/configs', {
    name: 'custom',
    configTypeId: ids.configType,
    data: { port: 5, ratio: 0.5, nested: { list: [1, 'a', { x: true }] } },
    tags: { kind: 'custom' },
  });
  ids.echo = await create('/services', {
    name: 'echo',
    configs: [ids.intercept, ids.host],
    roleAttributes: ['echo-svc'],
    encryptionRequired: true,
    terminatorStrategy: 'weighted',
    tags: { owner: 'ops' },
  });
  ids.plain = await create('/services', { name: 'plain', encryptionRequired: false, roleAttributes: [] });
  await createPostureChecks(create, ids);
  await createIdentities(create, ids);
  ids.er1 = await create('/edge-routers', {
    name: 'er1',
    roleAttributes: ['edge'],
    cost: 10,
    noTraversal: true,
    isTunnelerEnabled: true,
    appData: { site: 'x' },
    tags: { rack: '1' },
  });
  ids.er2 = await create('/edge-routers', { name: 'er2', roleAttributes: ['edge', 'spare'], disabled: true });
  ids.tr1 = await create('/transit-routers', { name: 'tr1', cost: 5 });
  ids.dial = await create('/service-policies', {
    name: 'dial-echo',
    type: 'Dial',
    semantic: 'AnyOf',
    identityRoles: ['#clients'],
    serviceRoles: ['#echo-svc'],
    postureCheckRoles: ['#pc'],
  });
  ids.bind = await create('/service-policies', {
    name: 'bind-echo',
    type: 'Bind',
    semantic: 'AllOf',
    identityRoles: ['#hosts'],
    serviceRoles: [`@${ids.echo}`],
    postureCheckRoles: [],
  });
  ids.erp = await create('/edge-router-policies', {
    name: 'all-routers',
    semantic: 'AllOf',
    identityRoles: ['#all'],
    edgeRouterRoles: ['#all'],
  });
  ids.serp = await create('/service-edge-router-policies', {
    name: 'echo-on-edge',
    semantic: 'AnyOf',
    serviceRoles: ['#all'],
    edgeRouterRoles: ['#edge'],
  });
  ids.terminator = await create('/terminators', {
    service: ids.plain,
    router: ids.er1,
    binding: 'transport',
    address: 'tcp:127.0.0.1:9',
    cost: 2,
    precedence: 'required',
  });
  await client.json('POST', `/edge/management/v1/identities/${ids.client}/service-configs`, admin, [
    { serviceId: ids.echo, configId: ids.interceptAlt },
  ]);
  await client.json('POST', `/edge/management/v1/identities/${ids.disabled}/disable`, admin, { durationMinutes: 600 });
  return enrollIdentities(client, admin, ids);
}

type Create = (path: string, body: unknown) => Promise<string>;

async function createPostureChecks(create: Create, ids: Record<string, string>): Promise<void> {
  const roleAttributes = ['pc'];
  ids.pcOs = await create('/posture-checks', {
    typeId: 'OS',
    name: 'os',
    roleAttributes,
    operatingSystems: [
      { type: 'Windows', versions: ['>=10.0.0'] },
      { type: 'Linux', versions: [] },
    ],
  });
  ids.pcMac = await create('/posture-checks', { typeId: 'MAC', name: 'mac', macAddresses: ['AA:BB:CC:DD:EE:FF'] });
  ids.pcDomain = await create('/posture-checks', { typeId: 'DOMAIN', name: 'domain', domains: ['corp.example'] });
  ids.pcProcess = await create('/posture-checks', {
    typeId: 'PROCESS',
    name: 'process',
    process: { osType: 'Windows', path: 'C:\\a.exe', hashes: ['ABCDEF'], signerFingerprint: 'ABCD' },
  });
  ids.pcMulti = await create('/posture-checks', {
    typeId: 'PROCESS_MULTI',
    name: 'process-multi',
    semantic: 'AllOf',
    processes: [{ osType: 'Linux', path: '/bin/a', hashes: ['aa'], signerFingerprints: ['bb'] }],
  });
  ids.pcMfa = await create('/posture-checks', {
    typeId: 'MFA',
    name: 'mfa',
    roleAttributes: ['mfa-check'],
    timeoutSeconds: 300,
    promptOnWake: true,
    promptOnUnlock: false,
    ignoreLegacyEndpoints: true,
  });
}

async function createIdentities(create: Create, ids: Record<string, string>): Promise<void> {
  ids.client = await create('/identities', {
    name: 'client',
    type: 'Device',
    isAdmin: false,
    roleAttributes: ['clients'],
    appData: { team: 'a', level: 3 },
    tags: { owner: 'me' },
    defaultHostingCost: 3,
    defaultHostingPrecedence: 'required',
    externalId: 'ext-1',
    enrollment: { ott: true },
  });
  ids.host = await create('/identities', {
    name: 'host',
    type: 'Service',
    isAdmin: false,
    roleAttributes: ['hosts'],
    serviceHostingCosts: { [ids.echo ?? '']: 7 },
    serviceHostingPrecedences: { [ids.echo ?? '']: 'failed' },
    enrollment: { ott: true },
  });
  ids['pw-user'] = await create('/identities', {
    name: 'pw-user',
    type: 'User',
    isAdmin: true,
    authPolicyId: ids.authPolicy,
    enrollment: { updb: 'pw-user' },
  });
  ids['mfa-user'] = await create('/identities', {
    name: 'mfa-user',
    type: 'User',
    isAdmin: false,
    roleAttributes: ['clients'],
    enrollment: { updb: 'mfa-user' },
  });
  ids['pending-ott'] = await create('/identities', {
    name: 'pending-ott',
    type: 'Device',
    isAdmin: false,
    enrollment: { ott: true },
  });
  ids['pending-updb'] = await create('/identities', {
    name: 'pending-updb',
    type: 'User',
    isAdmin: false,
    enrollment: { updb: 'pending-updb' },
  });
  ids['pending-ottca'] = await create('/identities', {
    name: 'pending-ottca',
    type: 'Device',
    isAdmin: false,
    enrollment: { ottca: ids.ca },
  });
  ids.disabled = await create('/identities', { name: 'disabled', type: 'Default', isAdmin: false });
}

async function enrollIdentities(
  client: UpstreamClient,
  admin: string,
  ids: Record<string, string>,
): Promise<RecordedSecrets> {
  const password = 'Old-Password-1';
  const certificates: Record<string, { certPem: string; keyPem: string }> = {};
  for (const name of ['client', 'host']) {
    const { csrPem, keyPem } = await createCsr(name);
    const certPem = await client.enrollOtt(await client.enrollmentToken(admin, ids[name] ?? ''), csrPem);
    certificates[name] = { certPem, keyPem };
  }
  for (const name of ['pw-user', 'mfa-user'])
    await client.enrollUpdb(await client.enrollmentToken(admin, ids[name] ?? ''), password);
  const mfaSession = await client.login('mfa-user', password);
  await client.json('POST', '/edge/client/v1/current-identity/mfa', mfaSession);
  const mfa = (await client.json('GET', '/edge/client/v1/current-identity/mfa', mfaSession)) as {
    data: { provisioningUrl: string; recoveryCodes: string[] };
  };
  const secret = secretOf(mfa.data.provisioningUrl);
  await client.json('POST', '/edge/client/v1/current-identity/mfa/verify', mfaSession, {
    code: totpCode(secret, new Date()),
  });
  const pendingJwts: Record<string, string> = {};
  for (const name of ['pending-ott', 'pending-updb', 'pending-ottca'])
    pendingJwts[name] = await client.enrollmentJwt(admin, ids[name] ?? '');
  for (const name of ['er1', 'er2']) pendingJwts[name] = await client.routerJwt(admin, 'edge-routers', ids[name] ?? '');
  pendingJwts.tr1 = await client.routerJwt(admin, 'transit-routers', ids.tr1 ?? '');
  return { ids, password, mfa: { secret, recoveryCodes: mfa.data.recoveryCodes }, certificates, pendingJwts };
}

await main();
