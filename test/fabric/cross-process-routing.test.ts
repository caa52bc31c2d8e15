// Routing across instances (issue 24, docs/reference/router-control-plane-links.md §5.8): routers held by two
// instances on one database (a SQLite file; PostgreSQL under npm run test:postgres) are told of each other, a
// circuit whose path spans both is routed (the Route for the far router goes through the router inbox), a link
// faulted at its far end and a router leaving move or end the circuit (the other instance's list follows), and a
// router moving to the other instance is told of its peers there. The routers are TypeScript routers over real TLS.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import {
  ContentType as EdgeType,
  CreateTerminatorResult,
  CreateTerminatorV2ResponseSchema,
} from '../../src/fabric/messages/gen/edge_ctrl_pb.js';
import {
  CircuitConfirmationSchema,
  ContentType as CtrlType,
  DestType,
  FaultSchema,
  FaultSubject,
  PeerState,
  PeerStateChangesSchema,
  RouteSchema,
  RouterLinksSchema,
  UnrouteSchema,
  type Route,
} from '../../src/fabric/messages/gen/ctrl_pb.js';
import { CreateCircuitV2Header, RouteResultHeader } from '../../src/fabric/messages/headers.js';
import { decodeString, encodeBool, encodeString, encodeU32 } from '../../src/fabric/channel/header-codecs.js';
import type { Message } from '../../src/fabric/channel/message.js';
import { REROUTE_ATTEMPT } from '../../src/fabric/circuits/route-plan.js';
import { OFFLINE_AFTER_MS } from '../../src/system/instance-heartbeat.js';
import { testDatabaseUrl } from '../support/test-app.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';
import { createEntity } from '../support/factories.js';
import { createSession } from '../support/sessions.js';
import {
  allowBindAndDial,
  createCircuitRequest,
  createTerminatorRequest,
  type SdkClient,
  sdkClient,
} from '../support/edge-clients.js';
import { enrollEdgeRouter, TestRouter, waitUntil, type EnrolledRouter } from '../support/test-router.js';
import { postgresSchema, sqliteFile, type SharedDatabase } from '../support/two-instances.js';

const isType = (contentType: number) => (message: Message) => message.contentType === Number(contentType);
const routesOf = (router: TestRouter): Route[] =>
  router.received.filter(isType(CtrlType.RouteType)).map((m) => fromBinary(RouteSchema, m.body));
const unroutesOf = (router: TestRouter) =>
  router.received.filter(isType(CtrlType.UnrouteType)).map((m) => fromBinary(UnrouteSchema, m.body).circuitId);
const peersOf = (router: TestRouter) =>
  router.received
    .filter(isType(CtrlType.PeerStateChangeRequestType))
    .flatMap((m) => fromBinary(PeerStateChangesSchema, m.body).changes);
/** metrics_pb.MetricsMessage{sourceId, histograms{name: {count, mean}}} as a router sends it (1007). */
function metrics(...entries: Array<[string, number]>): Uint8Array {
  const histogram = (name: string, mean: number) =>
    new BinaryWriter()
      .tag(1, WireType.LengthDelimited)
      .string(name)
      .tag(2, WireType.LengthDelimited)
      .bytes(new BinaryWriter().tag(1, WireType.Varint).int64(3).tag(3, WireType.Bit64).double(mean).finish())
      .finish();
  const writer = new BinaryWriter().tag(2, WireType.LengthDelimited).string('router');
  for (const [name, mean] of entries) writer.tag(8, WireType.LengthDelimited).bytes(histogram(name, mean));
  return writer.finish();
}
const forwards = (route: Route) => route.forwards.map((f) => [f.srcAddress, f.dstAddress, f.dstType]);

describe(`routing across two instances (${testDatabaseUrl ? 'PostgreSQL' : 'SQLite'})`, () => {
  let database: SharedDatabase;
  let one: TlsTestApp;
  let two: TlsTestApp;
  let admin: string;
  const ports: number[] = [];
  let a: EnrolledRouter, b: EnrolledRouter, c: EnrolledRouter;
  let routerA: TestRouter, routerB: TestRouter, routerC: TestRouter;
  let host: SdkClient;
  let dialer: SdkClient;
  let serviceId: string;
  let circuitId: string;

  const connect = async (router: EnrolledRouter, instance: TlsTestApp) => {
    const connected = await TestRouter.connect({
      port: ports[instance === one ? 0 : 1]!,
      router,
      ca: one.deps.pki.caBundlePem,
    });
    // Every Route succeeds, with the router's own peer data; the egress router's is the one the dialler hears.
    connected.channel.handle(CtrlType.RouteType, (message) => {
      const route = fromBinary(RouteSchema, message.body);
      const headers = new Map([
        [RouteResultHeader.attempt, encodeU32(route.attempt)],
        [RouteResultHeader.success, encodeBool(true)],
      ]);
      connected.channel.reply(message, { contentType: 1022, headers, body: encodeString(route.circuitId) });
    });
    await instance.fabric.controlPlane.presenceFlushed();
    return connected;
  };
  const reportLink = (router: TestRouter, id: string, dest: EnrolledRouter) =>
    router.channel.send({
      contentType: CtrlType.RouterLinksType,
      headers: new Map(),
      body: toBinary(
        RouterLinksSchema,
        create(RouterLinksSchema, {
          links: [{ id, destRouterId: dest.id, linkProtocol: 'tls', dialAddress: 'tls:127.0.0.1:10080', iteration: 1 }],
        }),
      ),
    });
  const linkIds = async (t: TlsTestApp) => (await t.fabric.links.view.list()).map((link) => link.id).sort();

  async function dial(through: TestRouter): Promise<Message> {
    const token = (await createSession(one, dialer.apiSessionToken, serviceId, 'Dial')).token;
    return through.channel.request(createCircuitRequest(token, dialer), 10_000);
  }

  before(async () => {
    database = testDatabaseUrl ? await postgresSchema() : sqliteFile();
    one = await buildTlsTestApp(database.options);
    two = await buildTlsTestApp(database.options);
    admin = await one.loginAsAdmin();
    for (const t of [one, two]) ports.push((await t.fabric.controlPlane.listen('127.0.0.1', 0)).port);
    [a, b, c] = [
      await enrollEdgeRouter(one, admin, { name: 'x-a' }),
      await enrollEdgeRouter(one, admin, { name: 'x-b' }),
      await enrollEdgeRouter(one, admin, { name: 'x-c' }),
    ];
    await createEntity(one, admin, 'edge-router-policies', {
      name: 'x-erp',
      semantic: 'AnyOf',
      identityRoles: ['#all'],
      edgeRouterRoles: ['#all'],
    });
    await createEntity(one, admin, 'service-edge-router-policies', {
      name: 'x-serp',
      semantic: 'AnyOf',
      serviceRoles: ['#all'],
      edgeRouterRoles: ['#all'],
    });
    host = await sdkClient(one, admin);
    dialer = await sdkClient(one, admin);
    serviceId = await createEntity(one, admin, 'services', { name: 'x-echo', encryptionRequired: false });
    await allowBindAndDial(one, admin, serviceId, host, dialer);
    // The SDKs' certificates are valid from one's (advanced) time on: both instances keep one time.
    two.clock.set(one.clock());
    routerA = await connect(a, one);
    routerB = await connect(b, two);
    routerC = await connect(c, two);
  });
  after(async () => {
    await Promise.all([routerA, routerB, routerC].map((router) => router?.close()));
    await one?.close();
    await two?.close();
    await database?.drop();
  });

  it('tells each router of the routers held by the other instance, with their listeners', async () => {
    await waitUntil(() =>
      Promise.resolve(peersOf(routerA).some((peer) => peer.id === b.id && peer.state === PeerState.Healthy)),
    );
    const toA = peersOf(routerA).find((peer) => peer.id === b.id)!;
    assert.deepEqual(
      [toA.version, toA.listeners.map((l) => [l.address, l.protocol, l.groups])],
      ['v1.1.8', [['tls:127.0.0.1:10080', 'tls', ['default']]]],
    );
    await waitUntil(() =>
      Promise.resolve(
        [routerB, routerC].every((router) =>
          peersOf(router).some((peer) => peer.id === a.id && peer.state === PeerState.Healthy),
        ),
      ),
    );
  });

  it('routes a circuit whose path spans both instances: the far router’s Route goes through the inbox', async (t) => {
    const bind = (await createSession(one, host.apiSessionToken, serviceId, 'Bind')).token;
    const terminator = await routerB.channel.request(createTerminatorRequest('x-hosted', bind, host), 5000);
    const created = fromBinary(CreateTerminatorV2ResponseSchema, terminator.body);
    assert.equal(created.result, CreateTerminatorResult.Success, created.msg);
    // a (on one) dialled links to b and c, c (on two) one to b: the direct a–b is the cheapest (one hop).
    reportLink(routerA, 'ab', b);
    reportLink(routerA, 'ac', c);
    reportLink(routerC, 'cb', b);
    await waitUntil(async () => (await linkIds(one)).length === 3 && (await linkIds(two)).length === 3);

    const started = performance.now();
    const reply = await dial(routerA);
    t.diagnostic(`dial over two instances (a on one, b on two): ${(performance.now() - started).toFixed(1)} ms`);
    assert.equal(reply.contentType, EdgeType.CreateCircuitV2ResponseType, decodeString(reply.body));
    circuitId = decodeString(reply.headers.get(CreateCircuitV2Header.responseCircuitId)!);
    const ingress = decodeString(reply.headers.get(CreateCircuitV2Header.responseAddress)!);
    const [atA] = routesOf(routerA);
    const [atB] = routesOf(routerB);
    assert.deepEqual(forwards(atA!), [
      [ingress, 'ab', DestType.Link],
      ['ab', ingress, DestType.Start],
    ]);
    const egress = atB!.egress!.address;
    assert.deepEqual([atB!.circuitId, atB!.egress!.destination], [circuitId, 'x-hosted']);
    assert.deepEqual(forwards(atB!), [
      [egress, 'ab', DestType.Link],
      ['ab', egress, DestType.End],
    ]);
    assert.deepEqual(one.fabric.circuits.registry.get(circuitId)?.path, { routerIds: [a.id, b.id], linkIds: ['ab'] });
    // Spanning both instances, it was recorded before the dial was answered: the other lists it at once.
    assert.deepEqual((await two.fabric.circuits.view.get(circuitId))?.path, {
      routerIds: [a.id, b.id],
      linkIds: ['ab'],
    });
  });

  it('the far instance leaves a circuit another instance owns alone when its router asks about it, and unroutes an unknown one', async () => {
    const confirm = create(CircuitConfirmationSchema, { circuitIds: [circuitId, 'x-unknown'], idleTimes: {} });
    routerB.channel.send({
      contentType: CtrlType.CircuitConfirmationType,
      headers: new Map(),
      body: toBinary(CircuitConfirmationSchema, confirm),
    });
    await routerB.waitFor(
      (m) => isType(CtrlType.UnrouteType)(m) && fromBinary(UnrouteSchema, m.body).circuitId === 'x-unknown',
    );
    assert.deepEqual(unroutesOf(routerB), ['x-unknown'], 'the owned circuit was not unrouted');
  });

  it('keeps the far end’s measured latency of a link the other instance holds, and only of its own links', async () => {
    routerB.channel.send({
      contentType: CtrlType.MetricsType,
      headers: new Map(),
      body: metrics(['link.ab.latency', 4_000_000], ['link.ac.latency', 7_000_000]),
    });
    await waitUntil(async () => (await one.fabric.links.view.get('ab'))?.destLatency === 4_000_000);
    const [ab, ac] = [await one.fabric.links.view.get('ab'), await two.fabric.links.view.get('ac')];
    assert.deepEqual([ab?.sourceLatency, ab?.cost], [65_000_000_000, 1 + 65_000 + 4]);
    assert.deepEqual(
      [ac?.sourceLatency, ac?.destLatency],
      [65_000_000_000, 65_000_000_000],
      'b is at neither end of ac',
    );
  });

  it('moves the circuit when the far router faults its link: the fault reaches the other end through the inbox', async () => {
    const before = routesOf(routerC).length;
    routerB.channel.send({
      contentType: CtrlType.FaultType,
      headers: new Map(),
      body: toBinary(FaultSchema, create(FaultSchema, { subject: FaultSubject.LinkFault, id: 'ab', iteration: 1 })),
    });
    const relayed = fromBinary(FaultSchema, (await routerA.waitFor(isType(CtrlType.FaultType))).body);
    assert.deepEqual([relayed.subject, relayed.id], [FaultSubject.LinkFault, 'ab']);
    await waitUntil(() =>
      Promise.resolve(one.fabric.circuits.registry.get(circuitId)?.path.linkIds.join() === 'ac,cb'),
    );
    const [atC] = routesOf(routerC).slice(before);
    assert.deepEqual(
      [atC!.attempt, forwards(atC!)],
      [
        REROUTE_ATTEMPT,
        [
          ['ac', 'cb', DestType.Link],
          ['cb', 'ac', DestType.Link],
        ],
      ],
    );
    assert.equal(routesOf(routerB).at(-1)!.attempt, REROUTE_ATTEMPT);
    assert.deepEqual(await linkIds(two), ['ac', 'cb']);
    await waitUntil(async () => (await two.fabric.circuits.view.get(circuitId))?.path.linkIds.join() === 'ac,cb');
  });

  it('ends the circuit when a router of its path leaves and no path is left: unrouted on the routers still there', async () => {
    await routerC.close();
    await waitUntil(() => Promise.resolve(one.fabric.circuits.registry.get(circuitId) === undefined));
    await routerA.waitFor(
      (m) => isType(CtrlType.UnrouteType)(m) && fromBinary(UnrouteSchema, m.body).circuitId === circuitId,
    );
    await routerB.waitFor(
      (m) => isType(CtrlType.UnrouteType)(m) && fromBinary(UnrouteSchema, m.body).circuitId === circuitId,
    );
    await waitUntil(() =>
      Promise.resolve(peersOf(routerA).some((peer) => peer.id === c.id && peer.state === PeerState.Unhealthy)),
    );
    assert.deepEqual(await linkIds(one), ['ac'], 'the links c dialled went with it');
    await waitUntil(async () => (await two.fabric.circuits.view.get(circuitId)) === undefined);
  });

  it('a router reconnecting to the other instance is told of the routers there, and its peers of it', async () => {
    const heardBefore = peersOf(routerB).length;
    routerC = await connect(c, one);
    await waitUntil(() =>
      Promise.resolve(
        peersOf(routerC).some((peer) => peer.id === a.id) && peersOf(routerC).some((peer) => peer.id === b.id),
      ),
    );
    await waitUntil(() =>
      Promise.resolve(
        peersOf(routerB)
          .slice(heardBefore)
          .some((peer) => peer.id === c.id && peer.state === PeerState.Healthy),
      ),
    );
    reportLink(routerC, 'cb', b);
    await waitUntil(async () => (await linkIds(two)).includes('cb'));
    const reply = await dial(routerA);
    assert.equal(reply.contentType, EdgeType.CreateCircuitV2ResponseType, decodeString(reply.body));
    const id = decodeString(reply.headers.get(CreateCircuitV2Header.responseCircuitId)!);
    assert.deepEqual(one.fabric.circuits.registry.get(id)?.path, {
      routerIds: [a.id, c.id, b.id],
      linkIds: ['ac', 'cb'],
    });
  });

  it('costs a few ms per Route forwarded to a router held by the other instance', async (t) => {
    const messenger = one.fabric.circuits.deps.messenger;
    const route = (n: number) => ({
      contentType: CtrlType.RouteType,
      headers: new Map(),
      body: toBinary(RouteSchema, create(RouteSchema, { circuitId: `x-cost-${n}`, attempt: 0 })),
    });
    const count = 40;
    const time = async (routerId: string) => {
      const started = performance.now();
      for (let n = 0; n < count; n++) await messenger.request(routerId, route(n), 5000);
      return (performance.now() - started) / count;
    };
    const local = await time(a.id);
    const remote = await time(b.id);
    t.diagnostic(
      `ms per Route and its result, ${testDatabaseUrl ? 'PostgreSQL' : 'SQLite'}: held here ${local.toFixed(2)}, held by the other instance ${remote.toFixed(2)}`,
    );
    assert.ok(remote > 0);
  });

  // Last: instance two is left for dead.
  it('forgets the routers and links of an instance that stopped beating, and tells the routers here', async () => {
    reportLink(routerB, 'ba', a);
    await waitUntil(async () => (await linkIds(one)).includes('ba'));
    const heard = peersOf(routerA).length;
    one.clock.advance(OFFLINE_AFTER_MS + 1000);
    await one.deps.heartbeat.beat();
    await one.fabric.controlPlane.sweepDeadInstances();
    await waitUntil(async () => !(await linkIds(one)).includes('ba'));
    await waitUntil(() =>
      Promise.resolve(
        peersOf(routerA)
          .slice(heard)
          .some((peer) => peer.id === b.id && peer.state === PeerState.Unhealthy),
      ),
    );
  });
});
