// Links between real-TLS test routers on one controller: what each is told of the other (the hello's listeners),
// the links they report, faults relayed, a router leaving.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  ContentType,
  FaultSchema,
  FaultSubject,
  PeerState,
  PeerStateChangesSchema,
  RouterLinksSchema,
} from '../../src/fabric/messages/gen/ctrl_pb.js';
import type { Message } from '../../src/fabric/channel/message.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';
import { enrollEdgeRouter, TestRouter, type EnrolledRouter } from '../support/test-router.js';

const isType = (contentType: number) => (message: Message) => message.contentType === contentType;

describe('links between routers (real TLS)', () => {
  let t: TlsTestApp;
  let ctrlPort: number;
  let routers: EnrolledRouter[];

  before(async () => {
    t = await buildTlsTestApp();
    const token = await t.loginAsAdmin();
    ctrlPort = (await t.fabric.controlPlane.listen('127.0.0.1', 0)).port;
    routers = [
      await enrollEdgeRouter(t, token, { name: 'link-a', cost: 5 }),
      await enrollEdgeRouter(t, token, { name: 'link-b' }),
    ];
  });
  after(() => t.close());

  const connect = (router: EnrolledRouter) =>
    TestRouter.connect({ port: ctrlPort, router, ca: t.deps.pki.caBundlePem });
  const peerStates = async (router: TestRouter, count: number) => {
    for (;;) {
      const states = router.received
        .filter(isType(ContentType.PeerStateChangeRequestType))
        .flatMap((m) => fromBinary(PeerStateChangesSchema, m.body).changes);
      if (states.length >= count) return states;
      await router.waitFor(() => false, 20).catch(() => undefined);
    }
  };

  it('tells each router of the other, reports and relays faults of their links, and marks a leaving router unhealthy', async () => {
    const [a, b] = [routers[0]!, routers[1]!];
    const routerA = await connect(a);
    const routerB = await connect(b);
    try {
      const [toB] = await peerStates(routerB, 1);
      assert.equal(toB!.id, a.id);
      assert.equal(toB!.state, PeerState.Healthy);
      assert.equal(toB!.version, 'v1.1.8');
      assert.deepEqual(
        toB!.listeners.map((l) => [l.address, l.protocol, l.groups, l.localBinding]),
        [['tls:127.0.0.1:10080', 'tls', ['default'], 'lo']],
        'the hello header 10 of the other router',
      );
      const [toA] = await peerStates(routerA, 1);
      assert.equal(toA!.id, b.id);

      routerB.channel.send({
        contentType: ContentType.RouterLinksType,
        headers: new Map(),
        body: toBinary(
          RouterLinksSchema,
          create(RouterLinksSchema, {
            links: [
              {
                id: 'link-ba',
                destRouterId: a.id,
                linkProtocol: 'tls',
                dialAddress: 'tls:127.0.0.1:10080',
                iteration: 1,
              },
            ],
          }),
        ),
      });
      for (let i = 0; i < 200 && (await t.fabric.links.view.list()).length === 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      const [link] = await t.fabric.links.view.list();
      assert.deepEqual(
        [link!.id, link!.sourceRouterId, link!.destRouterId, link!.state, link!.cost],
        ['link-ba', b.id, a.id, 'Connected', 130_001],
      );
      // a costs 5 (at least 10 counts), the source router nothing
      assert.deepEqual(await t.fabric.links.path(b.id, a.id), {
        routerIds: [b.id, a.id],
        linkIds: ['link-ba'],
        cost: 130_011,
      });

      routerA.channel.send({
        contentType: ContentType.FaultType,
        headers: new Map(),
        body: toBinary(
          FaultSchema,
          create(FaultSchema, { subject: FaultSubject.LinkFault, id: 'link-ba', iteration: 1 }),
        ),
      });
      const relayed = fromBinary(FaultSchema, (await routerB.waitFor(isType(ContentType.FaultType))).body);
      assert.deepEqual([relayed.subject, relayed.id, relayed.iteration], [FaultSubject.LinkFault, 'link-ba', 1]);
      assert.deepEqual(await t.fabric.links.view.list(), []);

      await routerB.close();
      const states = await peerStates(routerA, 2);
      assert.deepEqual([states[1]!.id, states[1]!.state], [b.id, PeerState.Unhealthy]);
    } finally {
      await routerA.close();
      await routerB.close();
    }
  });
});

describe('a router reconnecting to another instance (two instances, one SQLite file)', () => {
  let folder: string;
  let one: TlsTestApp;
  let two: TlsTestApp;
  let routers: EnrolledRouter[];
  const ports: number[] = [];

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'ziti-links-'));
    one = await buildTlsTestApp({ databaseFile: join(folder, 'ctrl.db') });
    two = await buildTlsTestApp({ databaseFile: join(folder, 'ctrl.db') });
    const token = await one.loginAsAdmin();
    for (const t of [one, two]) ports.push((await t.fabric.controlPlane.listen('127.0.0.1', 0)).port);
    routers = [];
    for (const name of ['move-a', 'move-b', 'move-c']) routers.push(await enrollEdgeRouter(one, token, { name }));
  });
  after(async () => {
    await one.close();
    await two.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const connect = (router: EnrolledRouter, instance: number) =>
    TestRouter.connect({ port: ports[instance]!, router, ca: one.deps.pki.caBundlePem });
  const reportLink = (router: TestRouter, id: string, dest: string) =>
    router.channel.send({
      contentType: ContentType.RouterLinksType,
      headers: new Map(),
      body: toBinary(
        RouterLinksSchema,
        create(RouterLinksSchema, {
          links: [{ id, destRouterId: dest, linkProtocol: 'tls', dialAddress: 'tls:x', iteration: 1 }],
        }),
      ),
    });
  const until = async (test: () => Promise<boolean>) => {
    for (let i = 0; i < 500 && !(await test()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(await test());
  };
  const states = (router: TestRouter) =>
    router.received
      .filter(isType(ContentType.PeerStateChangeRequestType))
      .flatMap((m) => fromBinary(PeerStateChangesSchema, m.body).changes.map((c) => [c.id, c.state]));

  it('the instance it leaves forgets its links and tells its routers; the one it joins hears its links and tells it of its routers', async () => {
    const [a, b, c] = [routers[0]!, routers[1]!, routers[2]!];
    const routerA = await connect(a, 0);
    const routerC = await connect(c, 1);
    let routerB = await connect(b, 0);
    try {
      reportLink(routerB, 'link-ba', a.id);
      await until(async () => (await one.fabric.links.view.list()).length === 1);
      await routerB.close();
      await until(() =>
        Promise.resolve(states(routerA).some(([id, state]) => id === b.id && state === PeerState.Unhealthy)),
      );
      assert.deepEqual(await one.fabric.links.view.list(), [], 'its dialled link went with it');
      await one.fabric.controlPlane.presenceFlushed();
      // Instance two's once-a-second look at the shared network, made now: it then knows A is online on one.
      await two.fabric.links.network?.sync();

      routerB = await connect(b, 1);
      reportLink(routerB, 'link-bc', c.id);
      await until(async () => (await two.fabric.links.view.list()).length === 1);
      // What each router was last told of each peer (earlier looks may have told C of B's coming and going).
      const last = (router: TestRouter) => Object.fromEntries(states(router));
      // Peer states gather for a moment before they go (PeerStateOutbox).
      await until(() =>
        Promise.resolve(Object.keys(last(routerB)).length === 2 && last(routerC)[b.id] === PeerState.Healthy),
      );
      assert.deepEqual(last(routerB), { [a.id]: PeerState.Healthy, [c.id]: PeerState.Healthy });
      assert.equal(last(routerC)[b.id], PeerState.Healthy);
      assert.deepEqual((await two.fabric.links.path(b.id, c.id))?.linkIds, ['link-bc']);
    } finally {
      await Promise.all([routerA.close(), routerB.close(), routerC.close()]);
    }
  });
});
