// Simulated topologies on fake router channels: what routers are told of each other, the links they report, paths
// over them, a link failing under an open circuit, a router leaving.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { Message } from '../channel/message.js';
import {
  ContentType,
  DestType,
  FaultSchema,
  FaultSubject,
  ListenerSchema,
  PeerState,
  PeerStateChangesSchema,
  RouteSchema,
  RouterLinksSchema,
  UnrouteSchema,
} from '../messages/gen/ctrl_pb.js';
import { Links } from './links.js';
import { serveRouterMessages } from '../../../test/support/router-messages.js';
import type { LinkRouter, LinkRouters } from './link-routers.js';
import { linkCost, type Link } from './link-model.js';
import { linkLatencies } from './link-latency.js';
import { MetricsMessageSchema } from '../messages/gen/metrics_pb.js';
import { localMessenger } from '../ctrl/messenger.js';
import { rerouteCircuits, type RoutedCircuit } from '../circuits/reroute.js';
import { REROUTE_ATTEMPT } from '../circuits/route-plan.js';

type Outgoing = Omit<Message, 'sequence'>;

class FakeRouter implements LinkRouter {
  readonly sent: Outgoing[] = [];
  readonly handlers = new Map<number, (message: Message) => void | Promise<void>>();
  readonly linkListeners;
  readonly versionInfo;
  /** What it answers a Route with: a success RouteResult unless told to fail. */
  failRoutes = false;
  readonly channel = {
    send: (message: Outgoing) => void this.sent.push(message),
    handle: (contentType: number, handler: (message: Message) => void | Promise<void>) =>
      void this.handlers.set(contentType, handler),
    handleOthers: () => undefined,
    reply: (_to: Message, message: Outgoing) => void this.sent.push(message),
    close: () => undefined,
    request: (message: Outgoing): Promise<Message> => {
      this.sent.push(message);
      return this.failRoutes
        ? Promise.reject(new Error('timeout'))
        : Promise.resolve({
            contentType: 1022,
            sequence: 1,
            headers: new Map([[1102, Uint8Array.of(1)]]),
            body: new Uint8Array(),
          });
    },
  };

  constructor(
    readonly routerId: string,
    version = 'v1.1.8',
  ) {
    this.versionInfo = { version };
    this.linkListeners = [
      create(ListenerSchema, { address: `tls:127.0.0.1:${routerId.length}`, protocol: 'tls', groups: ['default'] }),
    ];
  }

  deliver(contentType: number, body: Uint8Array): void {
    void this.handlers.get(contentType)?.({ contentType, sequence: 1, headers: new Map(), body });
  }

  reportLinks(...links: Array<{ id: string; dest: string; iteration?: number }>): void {
    const body = toBinary(
      RouterLinksSchema,
      create(RouterLinksSchema, {
        links: links.map((l) => ({
          id: l.id,
          destRouterId: l.dest,
          linkProtocol: 'tls',
          dialAddress: `tls:${l.dest}`,
          iteration: l.iteration ?? 1,
        })),
      }),
    );
    this.deliver(ContentType.RouterLinksType, body);
  }

  peerStates() {
    return this.sent
      .filter((m) => m.contentType === (ContentType.PeerStateChangeRequestType as number))
      .flatMap((m) =>
        fromBinary(PeerStateChangesSchema, m.body).changes.map((c) => [c.id, c.state, c.listeners.length, c.version]),
      );
  }

  routes() {
    return this.sent
      .filter((m) => m.contentType === (ContentType.RouteType as number))
      .map((m) => fromBinary(RouteSchema, m.body));
  }
}

class FakeRouters implements LinkRouters {
  readonly held = new Map<string, FakeRouter>();
  readonly #connected: Array<(r: LinkRouter) => void> = [];
  readonly #disconnected: Array<(r: LinkRouter) => void> = [];
  get = (id: string) => this.held.get(id);
  all = () => this.held.values();
  onConnected = (l: (r: LinkRouter) => void) => void this.#connected.push(l);
  onDisconnected = (l: (r: LinkRouter) => void) => void this.#disconnected.push(l);
  connect(router: FakeRouter): FakeRouter {
    this.held.set(router.routerId, router);
    this.#connected.forEach((l) => l(router));
    return router;
  }
  disconnect(id: string): void {
    const router = this.held.get(id)!;
    this.held.delete(id);
    this.#disconnected.forEach((l) => l(router));
  }
}

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function network(costs: Record<string, number> = {}, deleted = new Set<string>()) {
  const routers = new FakeRouters();
  const links = new Links({
    routers,
    routerAttributes: (ids) =>
      Promise.resolve(new Map(ids.map((id) => [id, { cost: costs[id] ?? 0, noTraversal: false }]))),
    routerExists: (id) => Promise.resolve(!deleted.has(id)),
    logger: quiet,
    peerStateWindowMs: 0,
  });
  // The links' lines of the router-message table, as a real router's channel is served.
  routers.onConnected((router) => serveRouterMessages(router.channel, router.routerId, { links }));
  const lost: Link[][] = [];
  links.onLinksLost((l) => void lost.push([...l]));
  const fault = (router: FakeRouter, id: string, iteration = 1, subject = FaultSubject.LinkFault) =>
    router.deliver(ContentType.FaultType, toBinary(FaultSchema, create(FaultSchema, { subject, id, iteration })));
  return { routers, links, lost, fault };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
/** Peer states go out (window 0) once the turn that queued them ends: after what awaits the store, too. */
const told = async () => {
  await tick();
  await tick();
};

describe('links over simulated topologies', () => {
  it('routers are told of each other as they connect (Healthy with listeners and version) and leave (Unhealthy, or Removed when deleted)', async () => {
    const deleted = new Set<string>();
    const { routers } = network({}, deleted);
    const a = routers.connect(new FakeRouter('a'));
    assert.deepEqual(a.peerStates(), [], 'alone: nothing to tell');
    const b = routers.connect(new FakeRouter('b'));
    await told();
    assert.deepEqual(b.peerStates(), [['a', PeerState.Healthy, 1, 'v1.1.8']]);
    assert.deepEqual(a.peerStates(), [['b', PeerState.Healthy, 1, 'v1.1.8']]);
    const old = routers.connect(new FakeRouter('old', 'v0.31.0'));
    await told();
    assert.deepEqual(old.peerStates(), [], 'a router without link management is not told');
    routers.disconnect('b');
    await told();
    assert.deepEqual(a.peerStates().slice(1), [
      ['old', PeerState.Healthy, 1, 'v0.31.0'],
      ['b', PeerState.Unhealthy, 0, ''],
    ]);
    deleted.add('old');
    routers.disconnect('old');
    await told();
    assert.deepEqual(a.peerStates().at(-1), ['old', PeerState.Removed, 0, '']);
  });

  it('tells each router once per turn of what changed in it, the latest state per peer (a connect storm)', async () => {
    const { routers } = network();
    const all = Array.from({ length: 20 }, (_, index) => routers.connect(new FakeRouter(`r${index}`)));
    await told();
    for (const router of all) {
      const messages = router.sent.filter(
        (message) => message.contentType === (ContentType.PeerStateChangeRequestType as number),
      );
      assert.equal(messages.length, 1, `${router.routerId}: one message, not one per newcomer`);
      assert.equal(router.peerStates().length, 19, 'every other router, once');
    }
  });

  it('a line a–b–c: links reported by their dialers, a path over both, the views upstream shows', async () => {
    const { routers, links } = network();
    const [a, , c] = ['a', 'b', 'c'].map((id) => routers.connect(new FakeRouter(id)));
    a!.reportLinks({ id: 'ab', dest: 'b' });
    c!.reportLinks({ id: 'cb', dest: 'b' });
    const path = await links.path('a', 'c');
    // fresh links carry 65 s each way: 130001 each, plus 10 per entered router
    assert.deepEqual(path, { routerIds: ['a', 'b', 'c'], linkIds: ['ab', 'cb'], cost: 2 * (130_001 + 10) });
    const listed = await links.view.list();
    assert.deepEqual(
      listed.map((l) => [
        l.id,
        l.sourceRouterId,
        l.destRouterId,
        l.state,
        l.cost,
        l.staticCost,
        l.sourceLatency,
        l.iteration,
      ]),
      [
        ['ab', 'a', 'b', 'Connected', 130_001, 1, 65_000_000_000, 1],
        ['cb', 'c', 'b', 'Connected', 130_001, 1, 65_000_000_000, 1],
      ],
    );
    assert.equal(await links.view.get('zz'), undefined);
  });

  it('an operator’s update (ziti fabric update link): static cost and down change the paths, and its circuits are told to move', async () => {
    const { routers, links, lost } = network();
    const [a] = ['a', 'b', 'c'].map((id) => routers.connect(new FakeRouter(id)));
    a!.reportLinks({ id: 'ab', dest: 'b' }, { id: 'ac', dest: 'c' });
    routers.get('b')!.reportLinks({ id: 'bc', dest: 'c' });
    assert.deepEqual((await links.path('a', 'c'))?.linkIds, ['ac']);
    assert.equal(await links.view.update!('ac', { staticCost: 200_000 }), true);
    assert.deepEqual((await links.path('a', 'c'))?.linkIds, ['ab', 'bc']);
    assert.equal((await links.view.get('ac'))?.staticCost, 200_000);
    assert.equal(await links.view.update!('ab', { down: true }), true);
    assert.deepEqual((await links.path('a', 'c'))?.linkIds, ['ac'], 'a down link carries nothing');
    assert.equal((await links.view.get('ab'))?.down, true);
    assert.deepEqual(
      lost.map((l) => l.map((x) => x.id)),
      [['ac'], ['ab']],
    );
    assert.equal(await links.view.update!('zz', { down: true }), false);
  });

  it('a triangle with unequal costs: measured latencies and router costs decide between two hops and the direct link', async () => {
    const { routers, links } = network({ b: 0 });
    const [a, b] = ['a', 'b', 'c'].map((id) => routers.connect(new FakeRouter(id)));
    a!.reportLinks({ id: 'ab', dest: 'b' }, { id: 'ac', dest: 'c' });
    b!.reportLinks({ id: 'bc', dest: 'c' });
    for (const [id, ms] of [
      ['ab', 2],
      ['bc', 2],
      ['ac', 50],
    ] as const) {
      const link = links.table.get(id)!;
      links.table.setLatency(link.srcRouterId, id, ms * 1e6);
      links.table.setLatency(link.dstRouterId, id, ms * 1e6);
    }
    // a→b→c: (1+4+10) * 2 = 30; a→c: 1+100+10 = 111
    assert.deepEqual(await links.path('a', 'c'), { routerIds: ['a', 'b', 'c'], linkIds: ['ab', 'bc'], cost: 30 });
    const dear = network({ b: 200 });
    const [a2, b2] = ['a', 'b', 'c'].map((id) => dear.routers.connect(new FakeRouter(id)));
    a2!.reportLinks({ id: 'ab', dest: 'b' }, { id: 'ac', dest: 'c' });
    b2!.reportLinks({ id: 'bc', dest: 'c' });
    assert.deepEqual((await dear.links.path('a', 'c'))?.linkIds, ['ac'], 'b costs 200: the direct link wins');
  });

  it('a link failing under an open circuit: the circuit moves to the other path with re-route routes, the other router hears the fault', async () => {
    const { routers, links, lost, fault } = network();
    const [a, b, c] = ['a', 'b', 'c'].map((id) => routers.connect(new FakeRouter(id)));
    a!.reportLinks({ id: 'ab', dest: 'b' }, { id: 'ac', dest: 'c' });
    b!.reportLinks({ id: 'bc', dest: 'c', iteration: 3 });
    for (const [router, id] of [
      ['a', 'ab'],
      ['b', 'ab'],
      ['b', 'bc'],
      ['c', 'bc'],
    ])
      links.table.setLatency(router!, id!, 1e6);
    links.table.setLatency('a', 'ac', 900e6); // a→c direct (1 + 900 + 65000 still unmeasured at c) is dearer: a→b→c
    const path = (await links.path('a', 'c'))!;
    assert.deepEqual(path.routerIds, ['a', 'b', 'c']);
    const circuit: RoutedCircuit = {
      id: 'c1',
      ingressId: 'I',
      egressId: 'E',
      path,
      terminator: { binding: 'edge', address: 'T' },
      tags: {},
    };

    fault(c!, 'bc', 2);
    assert.equal(links.table.get('bc')?.id, 'bc', 'an older iteration is ignored');
    fault(c!, 'bc', 3);
    assert.equal(links.table.get('bc'), undefined);
    assert.deepEqual(
      lost.map((l) => l.map((x) => x.id)),
      [['bc']],
    );
    const relayed = b!.sent
      .filter((m) => m.contentType === (ContentType.FaultType as number))
      .map((m) => fromBinary(FaultSchema, m.body));
    assert.deepEqual(
      relayed.map((f) => [f.subject, f.id, f.iteration]),
      [[FaultSubject.LinkFault, 'bc', 3]],
    );
    fault(c!, 'bc', 3); // again: an unknown link, only logged

    const deps = {
      path: (s: string, d: string) => links.path(s, d),
      messenger: localMessenger(routers),
      routeTimeoutMs: 1000,
      logger: quiet,
    };
    const [outcome] = await rerouteCircuits(deps, [circuit], lost[0]!);
    assert.deepEqual(outcome, {
      circuitId: 'c1',
      rerouted: true,
      path: { routerIds: ['a', 'c'], linkIds: ['ac'], cost: 1 + 900 + 65_000 + 10 },
    });
    const [toA] = a!.routes();
    const [toC] = c!.routes();
    assert.equal(toA!.attempt, REROUTE_ATTEMPT);
    assert.deepEqual(
      toA!.forwards.map((f) => [f.srcAddress, f.dstAddress, f.dstType]),
      [
        ['I', 'ac', DestType.Link],
        ['ac', 'I', DestType.Start],
      ],
    );
    assert.equal(toC!.egress, undefined, 'the last router keeps its xgress');
    assert.deepEqual(
      toC!.forwards.map((f) => [f.srcAddress, f.dstAddress, f.dstType]),
      [
        ['E', 'ac', DestType.Link],
        ['ac', 'E', DestType.End],
      ],
    );
    assert.deepEqual(b!.routes(), []);
  });

  it('a router leaving: its links go, circuits over them move or, with no path left, are unrouted on every router of their old path', async () => {
    const { routers, links, lost } = network();
    const [a, , c] = ['a', 'b', 'c'].map((id) => routers.connect(new FakeRouter(id)));
    a!.reportLinks({ id: 'ab', dest: 'b' });
    c!.reportLinks({ id: 'cb', dest: 'b' });
    const path = (await links.path('a', 'c'))!;
    routers.disconnect('b');
    await tick();
    assert.deepEqual(
      lost
        .flat()
        .map((l) => l.id)
        .sort(),
      ['ab', 'cb'],
    );
    assert.deepEqual(
      [...links.table.all()].map((l) => l.id).sort(),
      ['ab', 'cb'],
      'links towards b stay (its own dialled links: none)',
    );
    assert.equal(await links.path('a', 'c'), undefined, 'but carry nothing while b is away');
    const circuit: RoutedCircuit = {
      id: 'c2',
      ingressId: 'I',
      egressId: 'E',
      path,
      terminator: { binding: 'edge', address: 'T' },
      tags: {},
    };
    const deps = {
      path: (s: string, d: string) => links.path(s, d),
      messenger: localMessenger(routers),
      routeTimeoutMs: 1000,
      logger: quiet,
    };
    assert.deepEqual(await rerouteCircuits(deps, [circuit], lost.flat()), [{ circuitId: 'c2', rerouted: false }]);
    for (const router of [a!, c!]) {
      const unroutes = router.sent
        .filter((m) => m.contentType === (ContentType.UnrouteType as number))
        .map((m) => fromBinary(UnrouteSchema, m.body));
      assert.deepEqual(
        unroutes.map((u) => [u.circuitId, u.now]),
        [['c2', true]],
      );
    }
    // b comes back: the links towards it carry traffic again; a link b dialled went with it
    routers.connect(new FakeRouter('b'));
    assert.deepEqual((await links.path('a', 'c'))?.routerIds, ['a', 'b', 'c']);
    routers.disconnect('a');
    await tick();
    assert.equal(links.table.get('ab'), undefined, 'a dialled ab: it goes with a');
  });

  it('refuses what it cannot read and links from a replaced connection; a newer iteration replaces a link', () => {
    const { routers, links } = network();
    const a = routers.connect(new FakeRouter('a'));
    routers.connect(new FakeRouter('b'));
    a.deliver(ContentType.RouterLinksType, Uint8Array.of(0xff, 0xff, 0xff));
    assert.equal(links.table.size, 0);
    a.reportLinks({ id: 'ab', dest: 'b', iteration: 1 });
    links.table.setLatency('a', 'ab', 1e6);
    a.reportLinks({ id: 'ab', dest: 'b', iteration: 1 });
    assert.equal(links.table.get('ab')?.srcLatency, 1e6, 'the same iteration is already known');
    a.reportLinks({ id: 'ab', dest: 'b', iteration: 2 });
    assert.equal(links.table.get('ab')?.srcLatency, 65e9, 'a newer one replaces it');
    const replacement = new FakeRouter('a');
    routers.connect(replacement);
    a.reportLinks({ id: 'ax', dest: 'b' });
    assert.equal(links.table.get('ax'), undefined);
    replacement.deliver(ContentType.FaultType, Uint8Array.of(0xff));
    assert.equal(links.remove('ab'), true);
    assert.deepEqual(
      replacement.sent
        .filter((m) => m.contentType === (ContentType.FaultType as number))
        .map((m) => fromBinary(FaultSchema, m.body).id),
      ['ab'],
    );
    assert.equal(links.remove('ab'), false);
  });
});

describe('link latencies from router metrics (1007)', () => {
  // metrics_pb.MetricsMessage{sourceId, histograms{name: Histogram{count, mean}}} written by hand on the wire.
  const writer = () => new BinaryWriter();
  const histogram = (name: string, mean: number) =>
    writer()
      .tag(1, WireType.LengthDelimited)
      .string(name)
      .tag(2, WireType.LengthDelimited)
      .bytes(writer().tag(1, WireType.Varint).int64(3).tag(3, WireType.Bit64).double(mean).finish())
      .finish();
  const metrics = (...entries: Array<[string, number]>) => {
    const w = writer().tag(2, WireType.LengthDelimited).string('ignored-source');
    for (const [name, mean] of entries) w.tag(8, WireType.LengthDelimited).bytes(histogram(name, mean));
    return w.tag(12, WireType.Varint).bool(false).finish();
  };

  it('sets each end latency of its links to latency + queue_time means, and the cost follows', () => {
    const { routers, links } = network();
    const a = routers.connect(new FakeRouter('a'));
    const b = routers.connect(new FakeRouter('b'));
    a.reportLinks({ id: 'ab', dest: 'b' });
    assert.deepEqual(
      [
        ...linkLatencies(
          fromBinary(
            MetricsMessageSchema,
            metrics(['link.ab.latency', 2_500_000.7], ['link.ab.queue_time', 500_000], ['link.ab.tx.msgsize', 9]),
          ),
        ),
      ],
      [['ab', 3_000_000.7]],
    );
    a.deliver(
      ContentType.MetricsType,
      metrics(['link.ab.latency', 2_000_000], ['link.ab.queue_time', 1_000_000], ['link.zz.latency', 5]),
    );
    b.deliver(ContentType.MetricsType, metrics(['link.ab.latency', 4_000_000.9]));
    const link = links.table.get('ab')!;
    assert.deepEqual([link.srcLatency, link.dstLatency, linkCost(link)], [3_000_000, 4_000_000, 1 + 3 + 4]);
    routers.connect(new FakeRouter('c')).deliver(ContentType.MetricsType, metrics(['link.ab.latency', 1]));
    assert.equal(links.table.get('ab')!.srcLatency, 3_000_000, 'a router not at either end changes nothing');
    a.deliver(ContentType.MetricsType, Uint8Array.of(0x42, 0xff));
    assert.equal(links.table.get('ab')!.srcLatency, 3_000_000, 'a malformed message changes nothing');
  });
});

describe('a router back before its absence was told', () => {
  it('sends its peers no stale Unhealthy after they heard it is healthy again', async () => {
    const routers = new FakeRouters();
    let release: () => void = () => undefined;
    new Links({
      routers,
      routerAttributes: () => Promise.resolve(new Map()),
      routerExists: () => new Promise<boolean>((resolve) => (release = () => resolve(true))),
      logger: quiet,
      peerStateWindowMs: 0,
    });
    const a = routers.connect(new FakeRouter('a'));
    routers.connect(new FakeRouter('b'));
    routers.disconnect('b');
    routers.connect(new FakeRouter('b'));
    release();
    await told();
    assert.deepEqual(a.peerStates(), [['b', PeerState.Healthy, 1, 'v1.1.8']], 'its two connects as one state');
  });
});
