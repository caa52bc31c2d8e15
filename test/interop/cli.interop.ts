// `npm run test:interop`: upstream's `ziti` CLI (v1.1.8) as a real client of our controller. It logs in with the
// controller's CA, creates, lists (with filters), updates and deletes every entity kind an operator manages with it,
// and enrolls identities with the Go SDK's enrollment (`ziti edge enroll`). Every CLI call goes through a recording
// proxy; the request bodies it sent are written to test/interop/results/cli-requests.json.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startOurPeer, type Peer } from '../upstream/peers.js';
import { startRecordingProxy, type RecordingProxy } from './recording-proxy.js';
import { zitiCli, type ZitiCli } from './ziti-cli.js';

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), 'results');

describe('the ziti CLI (v1.1.8) against our controller', () => {
  let ours: Peer;
  let proxy: RecordingProxy;
  let work: string;
  let ziti: ZitiCli;
  /** The JSON list the CLI prints with -j: the names it answered. */
  const listNames = async (kind: string, filter: string) => {
    const run = await ziti.ok(['edge', 'list', kind, filter, '-j']);
    return (JSON.parse(run.stdout) as { data: Array<{ name: string }> }).data.map((entity) => entity.name).sort();
  };

  before(async () => {
    ours = await startOurPeer();
    const pki = join(ours.home, 'pki');
    proxy = await startRecordingProxy({
      baseUrl: ours.baseUrl,
      caPem: ours.caPem,
      // The chain the controller serves: its server certificate and the signing CA that issued it.
      certPem:
        readFileSync(join(pki, 'server.cert.pem'), 'utf8') + readFileSync(join(pki, 'signing-ca.cert.pem'), 'utf8'),
      keyPem: readFileSync(join(pki, 'server.key.pem'), 'utf8'),
    });
    work = mkdtempSync(join(tmpdir(), 'ziti-interop-'));
    writeFileSync(join(work, 'ca.pem'), ours.caPem);
    ziti = zitiCli(work);
  });

  after(async () => {
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'cli-requests.json'), `${JSON.stringify(proxy?.requests ?? [], null, 2)}\n`);
    await proxy?.close();
    await ours?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('logs in as the admin, trusting the controller through its CA', async () => {
    const run = await ziti.ok([
      'edge',
      'login',
      proxy.url,
      '-u',
      ours.username,
      '-p',
      ours.password,
      '--ca',
      join(work, 'ca.pem'),
    ]);
    assert.match(run.stdout, /^Token: [0-9a-f-]{36}$/m);
    assert.match(run.stdout, /Saving identity 'default'/);
  });

  it('creates, lists, updates and deletes config types and configs', async () => {
    const schema = JSON.stringify({ type: 'object', properties: { port: { type: 'integer' } }, required: ['port'] });
    assert.match(
      (await ziti.ok(['edge', 'create', 'config-type', 'cli-ct', schema])).stdout,
      /New config type cli-ct created with id: \S+/,
    );
    assert.match(
      (await ziti.ok(['edge', 'create', 'config', 'cli-cfg', 'cli-ct', '{"port": 80}'])).stdout,
      /New config cli-cfg created with id: \S+/,
    );
    const intercept = JSON.stringify({
      protocols: ['tcp'],
      addresses: ['cli.ziti'],
      portRanges: [{ low: 80, high: 80 }],
    });
    await ziti.ok(['edge', 'create', 'config', 'cli-intercept', 'intercept.v1', intercept]);
    assert.deepEqual(await listNames('configs', 'name contains "cli-"'), ['cli-cfg', 'cli-intercept']);
    assert.deepEqual(await listNames('config-types', 'name = "cli-ct"'), ['cli-ct']);
    await ziti.ok(['edge', 'update', 'config', 'cli-cfg', '--data', '{"port": 81}']);
    const refused = await ziti.run(['edge', 'update', 'config', 'cli-cfg', '--data', '{"port": "eighty"}']);
    assert.notEqual(refused.code, 0, 'data the config type refuses');
    assert.match(refused.stdout + refused.stderr, /COULD_NOT_VALIDATE/);
  });

  it('creates, lists, updates and deletes services, policies and edge routers', async () => {
    await ziti.ok(['edge', 'create', 'service', 'cli-svc', '--configs', 'cli-intercept', '-a', 'web']);
    await ziti.ok([
      'edge',
      'create',
      'service-policy',
      'cli-dial',
      'Dial',
      '--service-roles',
      '#web',
      '--identity-roles',
      '#cli-clients',
    ]);
    await ziti.ok([
      'edge',
      'create',
      'service-policy',
      'cli-bind',
      'Bind',
      '--service-roles',
      '@cli-svc',
      '--identity-roles',
      '#cli-hosts',
      '--semantic',
      'AnyOf',
    ]);
    await ziti.ok([
      'edge',
      'create',
      'edge-router-policy',
      'cli-erp',
      '--edge-router-roles',
      '#public',
      '--identity-roles',
      '#all',
    ]);
    await ziti.ok([
      'edge',
      'create',
      'service-edge-router-policy',
      'cli-serp',
      '--edge-router-roles',
      '#all',
      '--service-roles',
      '#web',
    ]);
    const router = await ziti.ok([
      'edge',
      'create',
      'edge-router',
      'cli-er',
      '-a',
      'public',
      '-o',
      join(work, 'cli-er.jwt'),
      '--tunneler-enabled',
    ]);
    assert.match(router.stdout, /New edge router cli-er created with id: \S+/);
    assert.match(readFileSync(join(work, 'cli-er.jwt'), 'utf8'), /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.deepEqual(await listNames('services', 'name = "cli-svc"'), ['cli-svc']);
    assert.deepEqual(await listNames('service-policies', 'name contains "cli-"'), ['cli-bind', 'cli-dial']);
    assert.deepEqual(await listNames('edge-router-policies', 'name = "cli-erp"'), ['cli-erp']);
    assert.deepEqual(await listNames('service-edge-router-policies', 'name = "cli-serp"'), ['cli-serp']);
    assert.deepEqual(await listNames('edge-routers', 'anyOf(roleAttributes) = "public"'), ['cli-er']);
    await ziti.ok(['edge', 'update', 'service', 'cli-svc', '-a', 'web,db']);
    await ziti.ok(['edge', 'update', 'service-policy', 'cli-dial', '--identity-roles', '#cli-clients,#more']);
    await ziti.ok(['edge', 'update', 'edge-router', 'cli-er', '--cost', '7']);
    const services = JSON.parse((await ziti.ok(['edge', 'list', 'services', 'name = "cli-svc"', '-j'])).stdout) as {
      data: Array<{ roleAttributes: string[] }>;
    };
    assert.deepEqual(services.data[0]?.roleAttributes, ['db', 'web']);
    assert.match((await ziti.ok(['edge', 'list', 'edge-routers', 'name = "cli-er"'])).stdout, /│ cli-er /);
  });

  it('creates and lists posture checks', async () => {
    await ziti.ok(['edge', 'create', 'posture-check', 'mac', 'cli-mac', '-m', '00:11:22:33:44:55']);
    await ziti.ok(['edge', 'create', 'posture-check', 'domain', 'cli-domain', '-d', 'corp.example']);
    assert.deepEqual(await listNames('posture-checks', 'name contains "cli-"'), ['cli-domain', 'cli-mac']);
    await ziti.ok(['edge', 'delete', 'posture-check', 'cli-domain']);
  });

  it('creates identities with ott and updb enrollment and enrolls them with the Go SDK', async () => {
    const ott = await ziti.ok([
      'edge',
      'create',
      'identity',
      'cli-device',
      '-o',
      join(work, 'cli-device.jwt'),
      '-a',
      'cli-clients',
    ]);
    assert.match(ott.stdout, /New identity cli-device created with id: \S+\nEnrollment expires at \S+/);
    await ziti.ok(['edge', 'create', 'identity', 'cli-user', '--updb', 'cli-user', '-a', 'cli-clients']);
    assert.deepEqual(await listNames('identities', 'anyOf(roleAttributes) = "cli-clients"'), [
      'cli-device',
      'cli-user',
    ]);

    const enrolled = await ziti.ok([
      'edge',
      'enroll',
      '-j',
      join(work, 'cli-device.jwt'),
      '-o',
      join(work, 'cli-device.json'),
      '-a',
      'EC',
    ]);
    assert.match(enrolled.stdout + enrolled.stderr, /enrolled successfully/);
    const config = JSON.parse(readFileSync(join(work, 'cli-device.json'), 'utf8')) as {
      ztAPI: string;
      id: { cert: string; key: string; ca: string };
    };
    assert.equal(config.ztAPI, `${ours.baseUrl}/edge/client/v1`);
    assert.match(config.id.cert, /^pem:-----BEGIN CERTIFICATE-----/);

    const listed = JSON.parse((await ziti.ok(['edge', 'list', 'identities', 'name = "cli-user"', '-j'])).stdout) as {
      data: Array<{ enrollment: { updb: { jwt: string } } }>;
    };
    writeFileSync(join(work, 'cli-user.jwt'), listed.data[0]!.enrollment.updb.jwt);
    await ziti.ok(['edge', 'enroll', '-j', join(work, 'cli-user.jwt'), '-u', 'cli-user', '-p', 'Cli-User-Password-1']);
    const after = JSON.parse((await ziti.ok(['edge', 'list', 'identities', 'name = "cli-user"', '-j'])).stdout) as {
      data: Array<{ authenticators: { updb?: { username: string } } }>;
    };
    assert.equal(
      after.data[0]?.authenticators.updb?.username,
      'cli-user',
      'the updb enrollment left a password authenticator',
    );
  });

  it("logs in with an enrolled identity's certificate and with a password, as ordinary identities", async () => {
    const config = JSON.parse(readFileSync(join(work, 'cli-device.json'), 'utf8')) as {
      id: { cert: string; key: string };
    };
    writeFileSync(join(work, 'device.cert'), config.id.cert.replace(/^pem:/, ''));
    writeFileSync(join(work, 'device.key'), config.id.key.replace(/^pem:/, ''));
    const device = zitiCli(join(work, 'device-home'));
    // Straight to the controller: the recording proxy ends TLS, and with it the client certificate.
    const certLogin = await device.ok([
      'edge',
      'login',
      ours.baseUrl,
      '--client-cert',
      join(work, 'device.cert'),
      '--client-key',
      join(work, 'device.key'),
      '--ca',
      join(work, 'ca.pem'),
    ]);
    assert.match(certLogin.stdout, /^Token: /m);
    const user = zitiCli(join(work, 'user-home'));
    assert.match(
      (
        await user.ok([
          'edge',
          'login',
          proxy.url,
          '-u',
          'cli-user',
          '-p',
          'Cli-User-Password-1',
          '--ca',
          join(work, 'ca.pem'),
        ])
      ).stdout,
      /^Token: /m,
    );
    const refused = await user.run(['edge', 'list', 'identities']);
    assert.notEqual(refused.code, 0, 'an ordinary identity may not list identities');
    assert.match(refused.stdout + refused.stderr, /UNAUTHORIZED|401/);
  });

  it('updates and deletes identities, and deletes everything else it made', async () => {
    await ziti.ok([
      'edge',
      'update',
      'identity',
      'cli-device',
      '-a',
      'cli-clients,cli-hosts',
      '--name',
      'cli-device-renamed',
    ]);
    assert.deepEqual(await listNames('identities', 'anyOf(roleAttributes) = "cli-hosts"'), ['cli-device-renamed']);
    for (const [kind, name] of [
      ['identity', 'cli-device-renamed'],
      ['identity', 'cli-user'],
      ['service-policy', 'cli-dial'],
      ['service-policy', 'cli-bind'],
      ['service-edge-router-policy', 'cli-serp'],
      ['edge-router-policy', 'cli-erp'],
      ['service', 'cli-svc'],
      ['edge-router', 'cli-er'],
      ['config', 'cli-intercept'],
      ['config', 'cli-cfg'],
      ['config-type', 'cli-ct'],
      ['posture-check', 'cli-mac'],
    ] as const) {
      await ziti.ok(['edge', 'delete', kind, name]);
    }
    assert.deepEqual(await listNames('identities', 'name contains "cli-"'), []);
    assert.deepEqual(await listNames('services', 'name contains "cli-"'), []);
  });
});
