// A control channel's liveness: heartbeats both ways, an unresponsive or silent peer dropped, a malformed or oversized
// frame closing that router's connection alone.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect as tlsConnect } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { ContentType, Header, encodeMessage } from '../../src/fabric/channel/message.js';
import { decodeU64, encodeU64 } from '../../src/fabric/channel/header-codecs.js';
import { capturingLogger } from '../support/log-capture.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';
import { enrollEdgeRouter, TestRouter, waitUntil, type EnrolledRouter } from '../support/test-router.js';

const MANAGEMENT = '/edge/management/v1';

describe('router control plane: heartbeats and hostile peers', () => {
  let t: TlsTestApp;
  let token: string;
  let port: number;
  let routerA: EnrolledRouter;
  let routerB: EnrolledRouter;
  const { logger, lines } = capturingLogger();

  before(async () => {
    t = await buildTlsTestApp({
      logger,
      settings: { ctrlHeartbeatIntervalMs: 50, ctrlCloseUnresponsiveMs: 600, ctrlConnectTimeoutMs: 300 },
    });
    token = await t.loginAsAdmin();
    port = (await t.fabric.controlPlane.listen('127.0.0.1', 0)).port;
    [routerA, routerB] = [
      await enrollEdgeRouter(t, token, { name: 'a' }),
      await enrollEdgeRouter(t, token, { name: 'b' }),
    ];
  });
  after(() => t.close());

  /** A router that answers heartbeats (its own interval 50 ms, as the controller's here). */
  const connect = (router: EnrolledRouter) =>
    TestRouter.connect({
      port,
      router,
      ca: t.deps.pki.caBundlePem,
      heartbeat: { sendIntervalMs: 50, checkIntervalMs: 20 },
    });
  const isOnline = async (id: string) =>
    (
      (await t.call({ method: 'GET', url: `${MANAGEMENT}/edge-routers/${id}`, token })).body as {
        data: { isOnline: boolean };
      }
    ).data.isOnline;

  it("sends its heartbeat, echoes the router's, and keeps a responsive router connected", async () => {
    // The router stamps only its first message itself, so the stamp written below is the one to be echoed.
    const router = await TestRouter.connect({
      port,
      router: routerA,
      ca: t.deps.pki.caBundlePem,
      heartbeat: { sendIntervalMs: 60_000, checkIntervalMs: 20 },
    });
    try {
      await router.waitFor((message) => message.headers.has(Header.heartbeat));
      const stamp = 1_732_000_000_123_456_789n;
      router.socket.write(
        encodeMessage({
          contentType: ContentType.heartbeat,
          sequence: 1000,
          headers: new Map([[Header.heartbeat, encodeU64(stamp)]]),
          body: new Uint8Array(0),
        }),
      );
      await router.waitFor(
        (message) =>
          message.headers.has(Header.heartbeatResponse) &&
          decodeU64(message.headers.get(Header.heartbeatResponse)!) === stamp,
      );
      // Several times the unresponsive limit, answering every heartbeat.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(router.channel.isClosed, false);
      assert.equal(await isOnline(routerA.id), true);
    } finally {
      await router.close();
    }
  });

  it('closes a router that stops answering heartbeats, and shows it offline', async () => {
    const router = await connect(routerA);
    await t.fabric.controlPlane.presenceFlushed();
    // Stop reading: its heartbeats' answers never come back.
    router.socket.pause();
    await waitUntil(() =>
      Promise.resolve(
        lines.some(
          (line) =>
            line.msg === 'closing control channel' &&
            line.channel === routerA.id &&
            /no heartbeat response/.test(String(line.reason)),
        ),
      ),
    );
    await waitUntil(async () => !(await isOnline(routerA.id)));
    router.socket.destroy();
  });

  for (const [name, frame, reason] of [
    [
      'a frame that does not parse',
      Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'),
      /unparseable frame: not a channel v2 frame/,
    ],
    [
      'an oversized body',
      encodeMessage({
        contentType: 1007,
        sequence: 9,
        headers: new Map(),
        body: new Uint8Array(4 * 1024 * 1024 + 1),
      }).subarray(0, 20),
      /body of 4194305 bytes exceeds the limit/,
    ],
    [
      'oversized headers',
      encodeMessage({
        contentType: 1007,
        sequence: 9,
        headers: new Map([[100, new Uint8Array(64 * 1024)]]),
        body: new Uint8Array(0),
      }).subarray(0, 20),
      /headers of 65544 bytes exceed the limit/,
    ],
  ] as const) {
    it(`closes the connection of a router sending ${name}, and that one alone`, async () => {
      const bystander = await connect(routerB);
      const victim = await connect(routerA);
      try {
        await t.fabric.controlPlane.presenceFlushed();
        victim.socket.write(frame);
        await victim.channel.closed;
        assert.ok(
          lines.some(
            (line) =>
              line.msg === 'closing control channel' && line.channel === routerA.id && reason.test(String(line.reason)),
          ),
        );
        await waitUntil(async () => !(await isOnline(routerA.id)));
        assert.equal(bystander.channel.isClosed, false);
        assert.equal(
          (
            await bystander.channel.request(
              { contentType: ContentType.ping, headers: new Map(), body: new Uint8Array(0) },
              5000,
            )
          ).contentType,
          ContentType.result,
        );
        assert.equal(await isOnline(routerB.id), true);
      } finally {
        await bystander.close();
      }
    });
  }

  it('drops a peer that completes TLS and says nothing, and refuses an oversized hello', async () => {
    const silent = tlsConnect({
      host: '127.0.0.1',
      port,
      servername: 'localhost',
      ca: t.deps.pki.caBundlePem,
      cert: routerA.certPem,
      key: routerA.keyPem,
      ALPNProtocols: ['ziti-ctrl'],
    });
    silent.on('error', () => undefined);
    await once(silent, 'secureConnect');
    await once(silent, 'close');
    assert.ok(
      lines.some(
        (line) =>
          line.msg === 'router connection refused' && /nothing received within 300 ms/.test(String(line.reason)),
      ),
    );

    const big = tlsConnect({
      host: '127.0.0.1',
      port,
      servername: 'localhost',
      ca: t.deps.pki.caBundlePem,
      cert: routerA.certPem,
      key: routerA.keyPem,
      ALPNProtocols: ['ziti-ctrl'],
    });
    big.on('error', () => undefined);
    await once(big, 'secureConnect');
    big.write(
      encodeMessage({
        contentType: ContentType.hello,
        sequence: -1,
        headers: new Map(),
        body: new Uint8Array(5000),
      }).subarray(0, 20),
    );
    await once(big, 'close');
    assert.ok(
      lines.some(
        (line) =>
          line.msg === 'router connection refused' &&
          /body of 5000 bytes exceeds the limit of 4192/.test(String(line.reason)),
      ),
    );
  });
});
