// Circuits over links (issue 24): a dial from one router to a terminator on another is routed along the cheapest
// path, with a Route to every router of it, retried, cleaned up, and moved when a link under it goes away. The
// routers are fake channels; the network is a snapshot the test changes.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import pino from 'pino';
import { Circuits, type CircuitLinks } from '../../src/fabric/circuits/circuits.js';
import { createEdgeTerminator } from '../../src/fabric/terminators/create-terminator.js';
import {
  CreateTerminatorResult,
  CreateTerminatorV2RequestSchema,
  ContentType as EdgeType,
} from '../../src/fabric/messages/gen/edge_ctrl_pb.js';
import {
  ContentType as CtrlType,
  DestType,
  FaultSchema,
  FaultSubject,
  RouteSchema,
  UnrouteSchema,
  type Route,
} from '../../src/fabric/messages/gen/ctrl_pb.js';
import { CreateCircuitV2Header, RouteResultHeader } from '../../src/fabric/messages/headers.js';
import {
  decodeString,
  decodeU32ToBytesMap,
  encodeBool,
  encodeString,
  encodeStringSlice,
  encodeU32,
  encodeU32ToBytesMap,
} from '../../src/fabric/channel/header-codecs.js';
import type { Message } from '../../src/fabric/channel/message.js';
import type { Link } from '../../src/fabric/links/link-model.js';
import type { NetworkSnapshot, PathLink, PathRouter } from '../../src/fabric/links/paths.js';
import { REROUTE_ATTEMPT } from '../../src/fabric/circuits/route-plan.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';
import { createEntity } from '../support/factories.js';
import { createSession, openEdgeRouter } from '../support/sessions.js';
import { allowBindAndDial, sdkClient, type SdkClient } from '../support/edge-clients.js';
import { FakeChannel } from '../support/fake-channel.js';
import { serveRouterMessages } from '../support/router-messages.js';

type Outgoing = Omit<Message, 'sequence'>;
type Answer = { success: true; peer?: [number, Uint8Array][] } | { success: false; error: string; code: number };

/** A network the test edits: the routers connected and the links between them (cost, usable). */
class FakeLinks implements CircuitLinks {
  routers = new Map<string, PathRouter>();
  links = new Map<string, PathLink>();
  lost: ((links: readonly Link[]) => void) | undefined;

  snapshot(): Promise<NetworkSnapshot> {
    return Promise.resolve({ routers: new Map(this.routers), links: [...this.links.values()] });
  }

  onLinksLost(listener: (links: readonly Link[]) => void): void {
    this.lost = listener;
  }

  link(id: string, srcRouterId: string, dstRouterId: string, cost: number): void {
    this.links.set(id, { id, srcRouterId, dstRouterId, cost, usable: true });
  }

  /** The link goes (a fault), and the listeners hear it as the Links class tells them. */
  lose(id: string): void {
    const link = this.links.get(id)!;
    this.links.delete(id);
    const lost: Link = {
      ...link,
      iteration: 1,
      protocol: 'tls',
      dialAddress: 'tls:x',
      state: 'Failed',
      down: false,
      staticCost: 1,
      srcLatency: 0,
      dstLatency: 0,
    };
    this.lost?.([lost]);
  }
}

const until = async (test: () => boolean) => {
  for (let i = 0; i < 200 && !test(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(test());
};

describe('circuits over links', () => {
  let t: TestApp;
  let admin: string;
  let host: SdkClient;
  let dialer: SdkClient;
  let a: string, b: string, c: string;
  let channels: Map<string, FakeChannel>;
  let network: FakeLinks;
  let circuits: Circuits;

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    [a, b, c] = [await openEdgeRouter(t, admin), await openEdgeRouter(t, admin), await openEdgeRouter(t, admin)];
    host = await sdkClient(t, admin);
    dialer = await sdkClient(t, admin);
  });
  after(() => t.close());
  beforeEach(() => {
    network = new FakeLinks();
    channels = new Map();
    for (const id of [a, b, c]) {
      network.routers.set(id, { id, cost: 0, noTraversal: false });
      channels.set(id, new FakeChannel((route) => Promise.resolve(routeResult(route, { success: true }))));
    }
    circuits = new Circuits({
      store: t.deps.store,
      clock: t.clock,
      logger: pino({ level: 'silent' }),
      routers: { channelOf: (id) => channels.get(id), isOnline: (id) => channels.has(id) },
      routeTimeoutMs: 50,
      links: network,
    });
    for (const [id, channel] of channels) serveRouterMessages(channel, id, { circuits });
  });

  const channel = (id: string) => channels.get(id)!;
  const routes = (id: string): Route[] => channel(id).requests.map((request) => fromBinary(RouteSchema, request.body));
  const unroutes = (id: string) =>
    channel(id)
      .sent.filter((m) => m.contentType === Number(CtrlType.UnrouteType))
      .map((m) => fromBinary(UnrouteSchema, m.body));
  const forwards = (route: Route) => route.forwards.map((f) => [f.srcAddress, f.dstAddress, f.dstType]);

  function routeResult(route: Outgoing, answer: Answer): Outgoing {
    const decoded = fromBinary(RouteSchema, route.body);
    const headers = new Map<number, Uint8Array>([[RouteResultHeader.attempt, encodeU32(decoded.attempt)]]);
    if (answer.success) {
      headers.set(RouteResultHeader.success, encodeBool(true));
      for (const [key, value] of answer.peer ?? []) headers.set(key, value);
    } else {
      headers.set(RouteResultHeader.error, encodeString(answer.error));
      headers.set(RouteResultHeader.errorCode, Uint8Array.of(answer.code));
    }
    return { contentType: 1022, headers, body: encodeString(decoded.circuitId) };
  }

  /** A service the host binds with a terminator on each router given (with its static cost), dialled by the dialer. */
  async function service(terminators: [routerId: string, cost: number][]) {
    const serviceId = await createEntity(t, admin, 'services', {
      name: `svc-${Math.random().toString(36).slice(2)}`,
      encryptionRequired: false,
    });
    await allowBindAndDial(t, admin, serviceId, host, dialer);
    const bind = (await createSession(t, host.apiSessionToken, serviceId, 'Bind')).token;
    const addresses: string[] = [];
    for (const [routerId, cost] of terminators) {
      const address = `t-${Math.random().toString(36).slice(2)}`;
      const request = create(CreateTerminatorV2RequestSchema, {
        address,
        sessionToken: bind,
        fingerprints: [host.fingerprint],
        peerData: { 1003: Uint8Array.of(7) },
        cost,
      });
      assert.equal(
        (await createEdgeTerminator(t.deps.store, routerId, request, t.clock())).result,
        CreateTerminatorResult.Success,
      );
      addresses.push(address);
    }
    return { addresses, dial: (await createSession(t, dialer.apiSessionToken, serviceId, 'Dial')).token };
  }

  /** The dialer dials through router `from` (its public key as peer data 1003 = [1]); answers the reply. */
  const dialReply = (from: string, token: string) =>
    channel(from).deliver({
      contentType: EdgeType.CreateCircuitV2RequestType,
      headers: new Map([
        [CreateCircuitV2Header.requestSessionToken, encodeString(token)],
        [CreateCircuitV2Header.requestFingerprints, encodeStringSlice([dialer.fingerprint])],
        [CreateCircuitV2Header.peerData, encodeU32ToBytesMap(new Map([[1003, Uint8Array.of(1)]]))],
      ]),
      body: new Uint8Array(0),
    });

  /** Dials through router `from`; answers the circuit id (or fails the test with the error). */
  async function dial(from: string, token: string): Promise<string> {
    const reply = await dialReply(from, token);
    assert.equal(reply?.contentType, EdgeType.CreateCircuitV2ResponseType, reply && decodeString(reply.body));
    return decodeString(reply.headers.get(CreateCircuitV2Header.responseCircuitId)!);
  }

  it('routes over two routers: link forwards at both, the egress only at the terminator’s, its peer data answered', async () => {
    network.link('ab', a, b, 5);
    const { addresses, dial: token } = await service([[b, 0]]);
    channel(a).responder = (route) =>
      Promise.resolve(routeResult(route, { success: true, peer: [[1003, Uint8Array.of(9)]] }));
    channel(b).responder = (route) =>
      Promise.resolve(routeResult(route, { success: true, peer: [[1003, Uint8Array.of(8)]] }));
    const reply = await dialReply(a, token);
    assert.equal(reply?.contentType, EdgeType.CreateCircuitV2ResponseType, reply && decodeString(reply.body));
    const circuitId = decodeString(reply.headers.get(CreateCircuitV2Header.responseCircuitId)!);
    const [atA] = routes(a);
    const [atB] = routes(b);
    assert.deepEqual([atA!.circuitId, atB!.circuitId, atA!.attempt, atB!.attempt], [circuitId, circuitId, 0, 0]);
    const ingress = decodeString(reply.headers.get(CreateCircuitV2Header.responseAddress)!);
    const egress = atB!.egress!.address;
    assert.deepEqual(forwards(atA!), [
      [ingress, 'ab', DestType.Link],
      ['ab', ingress, DestType.Start],
    ]);
    assert.deepEqual(forwards(atB!), [
      [egress, 'ab', DestType.Link],
      ['ab', egress, DestType.End],
    ]);
    assert.equal(atA!.egress, undefined, 'the dialling router dials nothing');
    assert.deepEqual([atB!.egress!.destination, atB!.egress!.peerData[1003]], [addresses[0], Uint8Array.of(1)]);
    assert.deepEqual(
      [...decodeU32ToBytesMap(reply.headers.get(CreateCircuitV2Header.peerData)!).get(1003)!],
      [8],
      'the terminator router’s peer data',
    );

    const shown = await circuits.view.get(circuitId);
    assert.deepEqual(shown?.path, { routerIds: [a, b], linkIds: ['ab'] });
    assert.equal(circuits.registry.get(circuitId)?.routerId, b);
    assert.equal(await circuits.view.remove(circuitId, true), true);
    assert.deepEqual(
      [unroutes(a), unroutes(b)],
      [[create(UnrouteSchema, { circuitId, now: true })], [create(UnrouteSchema, { circuitId, now: true })]],
    );
  });

  it('answers no path when no terminator’s router is reachable', async () => {
    const { dial: token } = await service([[c, 0]]);
    const reply = await dialReply(a, token);
    assert.equal(reply?.contentType, EdgeType.ErrorType);
    assert.equal(decodeString(reply.body), `can't route from ${a} -> ${c}`);
    assert.equal(routes(a).length + routes(c).length, 0);
  });

  it('takes the cheaper path of a triangle, and counts the path’s cost in choosing a terminator', async () => {
    network.link('ab', a, b, 5);
    network.link('bc', b, c, 5);
    network.link('ac', a, c, 100);
    const onC = await service([[c, 0]]);
    const viaB = await dial(a, onC.dial);
    assert.deepEqual(circuits.registry.get(viaB)?.path, { routerIds: [a, b, c], linkIds: ['ab', 'bc'] });
    const [middle] = routes(b);
    assert.deepEqual(forwards(middle!), [
      ['ab', 'bc', DestType.Link],
      ['bc', 'ab', DestType.Link],
    ]);
    assert.equal(middle!.egress, undefined);

    // a→b costs 5 + 10, a→b→c 30: the terminator on b (static cost 10) beats the one on c (0).
    const both = await service([
      [c, 0],
      [b, 10],
    ]);
    const chosen = await dial(a, both.dial);
    assert.deepEqual(circuits.registry.get(chosen)?.path.routerIds, [a, b]);
    assert.equal(routes(b).at(-1)!.egress!.destination, both.addresses[1]);
  });

  it('retries a failed hop, and unroutes a router the final path no longer uses', async () => {
    network.link('ab', a, b, 5);
    network.link('bc', b, c, 5);
    network.link('ac', a, c, 100);
    const { dial: token } = await service([[c, 0]]);
    // The first attempt fails at c; meanwhile the b–c link went, so the second attempt goes a→c directly.
    channel(c).responder = (route) => {
      const first = fromBinary(RouteSchema, route.body).attempt === 0;
      if (first) network.links.delete('bc');
      return Promise.resolve(
        routeResult(route, first ? { success: false, error: 'connection refused', code: 4 } : { success: true }),
      );
    };
    const circuitId = await dial(a, token);
    assert.deepEqual(
      [routes(a).map((r) => r.attempt), routes(b).map((r) => r.attempt), routes(c).map((r) => r.attempt)],
      [[0, 1], [0], [0, 1]],
    );
    assert.deepEqual(circuits.registry.get(circuitId)?.path, { routerIds: [a, c], linkIds: ['ac'] });
    assert.deepEqual(unroutes(b), [create(UnrouteSchema, { circuitId, now: true })], 'b took attempt 0’s route');
    assert.deepEqual([unroutes(a), unroutes(c)], [[], []]);
  });

  it('unroutes the routers that succeeded when every attempt fails', async () => {
    network.link('ab', a, b, 5);
    const { dial: token } = await service([[b, 0]]);
    channel(b).responder = (route) =>
      Promise.resolve(routeResult(route, { success: false, error: 'connection refused', code: 4 }));
    const reply = await dialReply(a, token);
    assert.equal(reply?.contentType, EdgeType.ErrorType);
    assert.match(
      decodeString(reply.body),
      /^exceeded maximum \[2\] retries creating circuit \[c\/(\S+)\]: error creating route for \[s\/\1\] on \[r\/\S+\] \(connection refused\)$/,
    );
    const circuitId = routes(a)[0]!.circuitId;
    assert.deepEqual([unroutes(a), unroutes(b)], [[create(UnrouteSchema, { circuitId, now: true })], []]);
    assert.equal(circuits.registry.size, 0);
  });

  it('sends new circuits the new cheapest way when a link’s cost changes; open ones stay on their path', async () => {
    network.link('ab', a, b, 5);
    network.link('bc', b, c, 5);
    network.link('ac', a, c, 100);
    const { dial: token } = await service([[c, 0]]);
    const first = await dial(a, token);
    assert.deepEqual(circuits.registry.get(first)?.path.linkIds, ['ab', 'bc']);
    network.link('bc', b, c, 500);
    const second = await dial(a, token);
    assert.deepEqual(circuits.registry.get(second)?.path.linkIds, ['ac']);
    assert.deepEqual(circuits.registry.get(first)?.path.linkIds, ['ab', 'bc']);
  });

  it('smart rerouting moves a live circuit off a link made costly, with re-route routes, and reports pathUpdated', async () => {
    network.link('ab', a, b, 5);
    network.link('bc', b, c, 5);
    network.link('ac', a, c, 100);
    const { dial: token } = await service([[c, 0]]);
    const circuitId = await dial(a, token);
    const updated: string[][] = [];
    circuits.onPathUpdated((circuit) => updated.push([circuit.id, ...circuit.path.linkIds]));
    await circuits.networkCycle();
    assert.deepEqual(updated, [], 'already on its best path');

    network.link('bc', b, c, 500); // a→b→c now 5 + 500 + 30, a→c 100 + 20
    const [before_a, before_b, before_c] = [routes(a).length, routes(b).length, routes(c).length];
    await circuits.networkCycle();
    assert.deepEqual(circuits.registry.get(circuitId)?.path, { routerIds: [a, c], linkIds: ['ac'] });
    assert.deepEqual(updated, [[circuitId, 'ac']]);
    const [toA, toC] = [routes(a).slice(before_a), routes(c).slice(before_c)];
    assert.deepEqual(
      [toA.map((r) => r.attempt), toC.map((r) => r.attempt), routes(b).length - before_b],
      [[REROUTE_ATTEMPT], [REROUTE_ATTEMPT], 0],
    );
    assert.equal(toC[0]!.egress, undefined, 'the terminator’s router keeps its xgress');
    assert.deepEqual((await circuits.view.get(circuitId))?.path.linkIds, ['ac']);

    await circuits.networkCycle();
    assert.equal(updated.length, 1, 'on its best path again: not moved twice');
  });

  it('smart rerouting: a router that does not take the new routes gets them again, the path found afresh', async () => {
    network.link('ab', a, b, 5);
    network.link('bc', b, c, 5);
    network.link('ac', a, c, 100);
    const { dial: token } = await service([[c, 0]]);
    const circuitId = await dial(a, token);
    let refused = 0;
    channel(a).responder = (route) => {
      if (fromBinary(RouteSchema, route.body).attempt === REROUTE_ATTEMPT && refused++ === 0)
        return Promise.reject(new Error('timeout'));
      return Promise.resolve(routeResult(route, { success: true }));
    };
    network.link('bc', b, c, 500);
    await circuits.networkCycle();
    assert.deepEqual(circuits.registry.get(circuitId)?.path.linkIds, ['ac']);
    assert.deepEqual(
      [routes(a).filter((r) => r.attempt === REROUTE_ATTEMPT).length, refused],
      [2, 2],
      'sent again after the refusal',
    );
    assert.deepEqual(
      routes(c).filter((r) => r.attempt === REROUTE_ATTEMPT).length,
      1,
      'the first sending stopped at a, the second reached c',
    );
  });

  it('re-routes a circuit a router cannot forward (ForwardFault), unroutes an unknown one there, and leaves one of an unknown owner', async () => {
    network.link('ab', a, b, 5);
    network.link('bc', b, c, 5);
    network.link('ac', a, c, 100);
    const { dial: token } = await service([[c, 0]]);
    const circuitId = await dial(a, token);
    const before = routes(c).length;
    // b lost its forward for the circuit (its link to c went); the controller has not heard of the link yet.
    network.links.delete('bc');
    const fault = (subject: FaultSubject, id: string) =>
      channel(b).deliver({
        contentType: CtrlType.FaultType,
        headers: new Map(),
        body: toBinary(FaultSchema, create(FaultSchema, { subject, id })),
      });
    await fault(FaultSubject.ForwardFault, `${circuitId} unknown-circuit`);
    await until(() => circuits.registry.get(circuitId)?.path.linkIds[0] === 'ac');
    assert.deepEqual(
      routes(c)
        .slice(before)
        .map((route) => route.attempt),
      [REROUTE_ATTEMPT],
    );
    assert.deepEqual(
      unroutes(b).map((unroute) => unroute.circuitId),
      ['unknown-circuit'],
    );
    await fault(FaultSubject.UnknownOwnerForwardFault, 'other-controllers-circuit');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(
      unroutes(b).map((unroute) => unroute.circuitId),
      ['unknown-circuit'],
      'its owner may be another controller',
    );

    // With no path left, the circuit is removed: unrouted on the routers of its path.
    network.links.delete('ac');
    await fault(FaultSubject.ForwardFault, circuitId);
    await until(() => circuits.registry.get(circuitId) === undefined);
    assert.deepEqual(
      [unroutes(a), unroutes(c)],
      [[create(UnrouteSchema, { circuitId, now: true })], [create(UnrouteSchema, { circuitId, now: true })]],
    );
  });

  it('moves an open circuit off a lost link, and ends it when no path is left', async () => {
    network.link('ab', a, b, 5);
    network.link('bc', b, c, 5);
    network.link('ac', a, c, 100);
    const { dial: token } = await service([[c, 0]]);
    const circuitId = await dial(a, token);
    const before = routes(a).length;
    t.clock.advance(1000);
    network.lose('bc');
    await until(() => circuits.registry.get(circuitId)?.path.linkIds[0] === 'ac');
    assert.deepEqual(circuits.registry.get(circuitId)?.path, { routerIds: [a, c], linkIds: ['ac'] });
    const [again] = routes(a).slice(before);
    const atC = routes(c).at(-1)!;
    assert.deepEqual([again!.attempt, atC.attempt], [REROUTE_ATTEMPT, REROUTE_ATTEMPT]);
    assert.equal(atC.egress, undefined, 'the terminator’s router keeps the egress it has');
    assert.deepEqual(forwards(atC), [
      [atC.forwards[0]!.srcAddress, 'ac', DestType.Link],
      ['ac', atC.forwards[0]!.srcAddress, DestType.End],
    ]);
    const shown = await circuits.view.get(circuitId);
    assert.equal(shown!.updatedAt.getTime() - shown!.createdAt.getTime(), 1000);

    network.lose('ac');
    await until(() => circuits.registry.get(circuitId) === undefined);
    assert.deepEqual(
      [unroutes(a), unroutes(c)],
      [[create(UnrouteSchema, { circuitId, now: true })], [create(UnrouteSchema, { circuitId, now: true })]],
    );
  });
});
