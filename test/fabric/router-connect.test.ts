// A router connecting to the control plane: the hello result, online and offline in REST, ALPN on the API port.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'node:https';
import { connect } from 'node:tls';
import { once } from 'node:events';
import { Header } from '../../src/fabric/channel/message.js';
import { decodeBool, decodeI32, decodeString } from '../../src/fabric/channel/header-codecs.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';
import { enrollEdgeRouter, TestRouter, waitUntil, type EnrolledRouter } from '../support/test-router.js';

const MANAGEMENT = '/edge/management/v1';

describe('router control plane: connect, online, offline', () => {
  let t: TlsTestApp;
  let token: string;
  let ctrlPort: number;
  let router: EnrolledRouter;

  before(async () => {
    t = await buildTlsTestApp();
    token = await t.loginAsAdmin();
    ctrlPort = (await t.fabric.controlPlane.listen('127.0.0.1', 0)).port;
    router = await enrollEdgeRouter(t, token, { name: 'router-a' });
  });
  after(() => t.close());

  const edgeRouter = async (id: string) =>
    (await t.call({ method: 'GET', url: `${MANAGEMENT}/edge-routers/${id}`, token })).body as {
      data: Record<string, unknown>;
    };
  const connectRouter = (port = ctrlPort, alpn?: string[]) =>
    TestRouter.connect({ port, router, ca: t.deps.pki.caBundlePem, ...(alpn ? { alpn } : {}) });

  it('answers the hello with the headers a v1.1.8 router requires', async () => {
    const connected = await connectRouter();
    try {
      const { headers } = connected.result;
      assert.equal(decodeI32(headers.get(Header.replyFor)!), -1);
      assert.equal(decodeBool(headers.get(Header.resultSuccess)!), true);
      assert.equal(decodeString(headers.get(Header.id)!), t.deps.clusterId);
      assert.ok(decodeString(headers.get(Header.connectionId)!).length > 0);
      const version = decodeString(headers.get(Header.helloVersion)!).split('|');
      assert.equal(version.length, 5);
      assert.equal(version[0], 'v1.1.8');
      assert.equal(version[1], t.deps.build.revision);
      assert.deepEqual([...headers.get(12)!], [0x0e], 'CreateTerminatorV2, SingleRouterLinkSource and CreateCircuitV2');
    } finally {
      await connected.close();
    }
  });

  it('shows a connected router online with its versions, and offline once it disconnects', async () => {
    const connected = await connectRouter();
    await t.fabric.controlPlane.presenceFlushed();
    const online = (await edgeRouter(router.id)).data;
    assert.equal(online.isOnline, true);
    assert.deepEqual(online.versionInfo, {
      arch: 'amd64',
      buildDate: '2024-07-29 13:47:45',
      os: 'linux',
      revision: '28fb11b5a76f358685317a85d230b60dd08f66b4',
      version: 'v1.1.8',
    });
    const filtered = await t.call({
      method: 'GET',
      url: `${MANAGEMENT}/edge-routers?filter=${encodeURIComponent('online = true')}`,
      token,
    });
    assert.deepEqual(
      (filtered.body as { data: Array<{ id: string }> }).data.map((r) => r.id),
      [router.id],
    );
    const transit = await t.call({ method: 'GET', url: `${MANAGEMENT}/routers/${router.id}`, token });
    assert.equal((transit.body as { data: { isOnline: boolean } }).data.isOnline, true);
    // The fabric API shows the link listeners and version of its hello.
    const fabric = (
      (await t.call({ method: 'GET', url: `/fabric/v1/routers/${router.id}`, token })).body as {
        data: Record<string, unknown>;
      }
    ).data;
    assert.equal(fabric.connected, true);
    assert.deepEqual(fabric.listenerAddresses, [{ address: 'tls:127.0.0.1:10080', protocol: 'tls' }]);
    assert.equal((fabric.versionInfo as { version: string }).version, 'v1.1.8');

    await connected.close();
    await waitUntil(async () => (await edgeRouter(router.id)).data.isOnline === false);
    const fabricOffline = (
      (await t.call({ method: 'GET', url: `/fabric/v1/routers/${router.id}`, token })).body as {
        data: Record<string, unknown>;
      }
    ).data;
    assert.deepEqual(
      [fabricOffline.connected, fabricOffline.listenerAddresses, 'versionInfo' in fabricOffline],
      [false, null, false],
    );
    const offline = await t.call({
      method: 'GET',
      url: `${MANAGEMENT}/edge-routers?filter=${encodeURIComponent('connected = true')}`,
      token,
    });
    assert.deepEqual((offline.body as { data: unknown[] }).data, []);
  });

  it('serves the control plane on the API port to ALPN ziti-ctrl, while HTTPS clients there are unaffected', async () => {
    const connected = await connectRouter(t.port);
    try {
      await t.fabric.controlPlane.presenceFlushed();
      assert.equal((await edgeRouter(router.id)).data.isOnline, true);
      for (const alpn of [['http/1.1'], ['h2', 'http/1.1'], undefined]) {
        const reply = await httpsGet(t.port, t.deps.pki.caBundlePem, alpn);
        assert.equal(reply.status, 200, `ALPN ${JSON.stringify(alpn)}`);
        assert.equal(reply.alpn, alpn ? 'http/1.1' : false);
      }
    } finally {
      await connected.close();
    }
  });

  it('refuses a second connection of a connected router, as upstream does within its churn limit', async () => {
    const first = await connectRouter();
    try {
      await assert.rejects(connectRouter(), /connection closed before the hello exchange/);
      assert.equal(first.channel.isClosed, false);
    } finally {
      await first.close();
    }
  });

  it('refuses a hello without the version header', async () => {
    await assert.rejects(
      TestRouter.connect({
        port: ctrlPort,
        router,
        ca: t.deps.pki.caBundlePem,
        helloHeaders: new Map([[Header.helloVersion, undefined]]),
      }),
      /connection closed before the hello exchange/,
    );
  });

  it('refuses TLS to a client offering only another protocol on the control port', async () => {
    const socket = connect({
      host: '127.0.0.1',
      port: ctrlPort,
      servername: 'localhost',
      ca: t.deps.pki.caBundlePem,
      ALPNProtocols: ['http/1.1'],
    });
    const [error] = (await once(socket, 'error')) as [Error];
    assert.match(error.message, /no application protocol|alert number 120/i);
  });
});

function httpsGet(
  port: number,
  ca: string,
  alpn: string[] | undefined,
): Promise<{ status: number; alpn: string | false }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        servername: 'localhost',
        path: '/version',
        ca,
        agent: false,
        ...(alpn ? { ALPNProtocols: alpn } : {}),
      },
      (res) => {
        res.resume();
        resolve({
          status: res.statusCode ?? 0,
          alpn: (res.socket as import('node:tls').TLSSocket).alpnProtocol ?? false,
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
