// Links between real-TLS test routers on one controller: what each is told of the other (the hello's listeners),
// the links they report, faults relayed, a router leaving.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { ContentType, FaultSchema, FaultSubject, PeerState, PeerStateChangesSchema, RouterLinksSchema } from '../../src/fabric/messages/gen/ctrl_pb.js';
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
    ctrlPort = (await t.controlPlane.listen('127.0.0.1', 0)).port;
    routers = [await enrollEdgeRouter(t, token, { name: 'link-a', cost: 5 }), await enrollEdgeRouter(t, token, { name: 'link-b' })];
  });
  after(() => t.close());

  const connect = (router: EnrolledRouter) => TestRouter.connect({ port: ctrlPort, router, ca: t.deps.pki.caBundlePem });
  const peerStates = async (router: TestRouter, count: number) => {
    for (;;) {
      const states = router.received.filter(isType(ContentType.PeerStateChangeRequestType)).flatMap((m) => fromBinary(PeerStateChangesSchema, m.body).changes);
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
      assert.deepEqual(toB!.listeners.map((l) => [l.address, l.protocol, l.groups, l.localBinding]), [['tls:127.0.0.1:10080', 'tls', ['default'], 'lo']], 'the hello header 10 of the other router');
      const [toA] = await peerStates(routerA, 1);
      assert.equal(toA!.id, b.id);

      routerB.channel.send({ contentType: ContentType.RouterLinksType, headers: new Map(), body: toBinary(RouterLinksSchema, create(RouterLinksSchema, { links: [{ id: 'link-ba', destRouterId: a.id, linkProtocol: 'tls', dialAddress: 'tls:127.0.0.1:10080', iteration: 1 }] })) });
      for (let i = 0; i < 200 && (await t.links.view.list()).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      const [link] = await t.links.view.list();
      assert.deepEqual([link!.id, link!.sourceRouterId, link!.destRouterId, link!.state, link!.cost], ['link-ba', b.id, a.id, 'Connected', 130_001]);
      // a costs 5 (at least 10 counts), the source router nothing
      assert.deepEqual(await t.links.path(b.id, a.id), { routerIds: [b.id, a.id], linkIds: ['link-ba'], cost: 130_011 });

      routerA.channel.send({ contentType: ContentType.FaultType, headers: new Map(), body: toBinary(FaultSchema, create(FaultSchema, { subject: FaultSubject.LinkFault, id: 'link-ba', iteration: 1 })) });
      const relayed = fromBinary(FaultSchema, (await routerB.waitFor(isType(ContentType.FaultType))).body);
      assert.deepEqual([relayed.subject, relayed.id, relayed.iteration], [FaultSubject.LinkFault, 'link-ba', 1]);
      assert.deepEqual(await t.links.view.list(), []);

      await routerB.close();
      const states = await peerStates(routerA, 2);
      assert.deepEqual([states[1]!.id, states[1]!.state], [b.id, PeerState.Unhealthy]);
    } finally {
      await routerA.close();
      await routerB.close();
    }
  });
});
