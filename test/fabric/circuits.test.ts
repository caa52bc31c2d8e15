import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { create, fromBinary, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import pino from 'pino';
import { Circuits } from '../../src/fabric/circuits/circuits.js';
import { createEdgeTerminator } from '../../src/fabric/terminators/create-terminator.js';
import {
  CreateTerminatorResult,
  CreateTerminatorV2RequestSchema,
  ContentType as EdgeType,
} from '../../src/fabric/messages/gen/edge_ctrl_pb.js';
import {
  CircuitConfirmationSchema,
  ContentType as CtrlType,
  DestType,
  FaultSchema,
  FaultSubject,
  RouteSchema,
  UnrouteSchema,
  type Fault,
} from '../../src/fabric/messages/gen/ctrl_pb.js';
import { CreateCircuitV2Header, RouteResultHeader } from '../../src/fabric/messages/headers.js';
import {
  decodeString,
  decodeStringToStringMap,
  decodeU32,
  decodeU32ToBytesMap,
  encodeBool,
  encodeString,
  encodeStringSlice,
  encodeU32,
  encodeU32ToBytesMap,
} from '../../src/fabric/channel/header-codecs.js';
import type { Message } from '../../src/fabric/channel/message.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';
import { createEdgeRouter, createEntity, readEntity } from '../support/factories.js';
import { createSession, openEdgeRouter } from '../support/sessions.js';
import { allowBindAndDial, sdkClient, type SdkClient } from '../support/edge-clients.js';
import { FakeChannel } from '../support/fake-channel.js';
import { serveRouterMessages } from '../support/router-messages.js';

type Outgoing = Omit<Message, 'sequence'>;
const ERROR_CODE = 1014;

describe('circuits through one router', () => {
  let t: TestApp;
  let admin: string;
  let routerId: string;
  let host: SdkClient;
  let dialer: SdkClient;
  let channel: FakeChannel;
  let circuits: Circuits;

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    routerId = await openEdgeRouter(t, admin);
    host = await sdkClient(t, admin);
    dialer = await sdkClient(t, admin);
  });
  after(() => t.close());
  beforeEach(() => {
    channel = new FakeChannel();
    circuits = new Circuits({
      store: t.deps.store,
      clock: t.clock,
      logger: pino({ level: 'silent' }),
      routers: { channelOf: () => channel, isOnline: (id) => id === routerId },
      routeTimeoutMs: 50,
    });
    serveRouterMessages(channel, routerId, { circuits });
  });

  /** A service the host binds and the dialer dials, with the given terminators made by CreateTerminatorV2. */
  async function service(
    body: Record<string, unknown> = {},
    terminators: Omit<MessageInitShape<typeof CreateTerminatorV2RequestSchema>, '$typeName'>[] = [{}],
  ) {
    const serviceId = await createEntity(t, admin, 'services', {
      name: `svc-${Math.random().toString(36).slice(2)}`,
      encryptionRequired: false,
      ...body,
    });
    await allowBindAndDial(t, admin, serviceId, host, dialer);
    const bind = (await createSession(t, host.apiSessionToken, serviceId, 'Bind')).token;
    const ids: string[] = [];
    for (const fields of terminators) {
      const address = `t-${Math.random().toString(36).slice(2)}`;
      const request = create(CreateTerminatorV2RequestSchema, {
        address,
        sessionToken: bind,
        fingerprints: [host.fingerprint],
        peerData: { 1003: Uint8Array.of(7) },
        ...fields,
      });
      assert.equal(
        (await createEdgeTerminator(t.deps.store, routerId, request, t.clock())).result,
        CreateTerminatorResult.Success,
      );
      ids.push(address);
    }
    const session = await createSession(t, dialer.apiSessionToken, serviceId, 'Dial');
    return { serviceId, terminatorIds: ids, dial: session.token, dialSessionId: session.id };
  }

  const dialMessage = (
    token: string,
    peerData = new Map([[1003, Uint8Array.of(1)]]),
    fingerprint = dialer.fingerprint,
    instanceId = '',
  ): Outgoing => ({
    contentType: EdgeType.CreateCircuitV2RequestType,
    headers: new Map([
      [CreateCircuitV2Header.requestSessionToken, encodeString(token)],
      [CreateCircuitV2Header.requestFingerprints, encodeStringSlice([fingerprint])],
      [CreateCircuitV2Header.peerData, encodeU32ToBytesMap(peerData)],
      ...(instanceId
        ? [[CreateCircuitV2Header.requestTerminatorInstanceId, encodeString(instanceId)] as [number, Uint8Array]]
        : []),
    ]),
    body: new Uint8Array(0),
  });
  const routeResult = (
    route: Outgoing,
    outcome: { success: true; peer?: [number, Uint8Array][] } | { success: false; error: string; code: number },
  ): Outgoing => {
    const decoded = fromBinary(RouteSchema, route.body);
    const headers = new Map<number, Uint8Array>([[RouteResultHeader.attempt, encodeU32(decoded.attempt)]]);
    if (outcome.success) {
      headers.set(RouteResultHeader.success, encodeBool(true));
      for (const [key, value] of outcome.peer ?? []) headers.set(key, value);
    } else {
      headers.set(RouteResultHeader.error, encodeString(outcome.error));
      headers.set(RouteResultHeader.errorCode, Uint8Array.of(outcome.code));
    }
    return { contentType: 1022, headers, body: encodeString(decoded.circuitId) };
  };
  const succeed =
    (peer: [number, Uint8Array][] = [[1003, Uint8Array.of(8)]]) =>
    (route: Outgoing) =>
      Promise.resolve(routeResult(route, { success: true, peer }));
  const routesSent = () => channel.requests.map((request) => fromBinary(RouteSchema, request.body));
  const errorOf = (reply: Outgoing | undefined) => {
    assert.equal(reply?.contentType, EdgeType.ErrorType);
    return { code: decodeU32(reply.headers.get(ERROR_CODE)!), message: decodeString(reply.body) };
  };

  it('routes a dial to the terminator and answers with the circuit, its address, peer data and tags', async () => {
    const { serviceId, terminatorIds, dial } = await service();
    channel.responder = succeed([
      [1003, Uint8Array.of(8)],
      [1110, encodeString('10.0.0.1:80')],
      [5000, Uint8Array.of(3)],
    ]);
    const reply = await channel.deliver(dialMessage(dial));
    assert.equal(reply?.contentType, EdgeType.CreateCircuitV2ResponseType, reply && decodeString(reply.body));
    const [route] = routesSent();
    assert.equal(route!.attempt, 0);
    assert.deepEqual(
      route!.forwards.map((f) => [f.dstType]),
      [[DestType.End], [DestType.Start]],
    );
    const [toEgress, toIngress] = route!.forwards;
    assert.deepEqual([toEgress!.srcAddress, toEgress!.dstAddress], [toIngress!.dstAddress, toIngress!.srcAddress]);
    assert.deepEqual(
      [route!.egress!.binding, route!.egress!.destination, route!.egress!.address],
      ['edge', terminatorIds[0], toEgress!.dstAddress],
    );
    assert.deepEqual(
      route!.egress!.peerData[1003],
      Uint8Array.of(1),
      'the dialler’s peer data goes to the hosting side',
    );
    assert.ok(route!.timeout > 0n && route!.timeout <= 50_000_000n);
    const circuitId = decodeString(reply.headers.get(CreateCircuitV2Header.responseCircuitId)!);
    assert.equal(circuitId, route!.circuitId);
    assert.equal(
      decodeString(reply.headers.get(CreateCircuitV2Header.responseAddress)!),
      toEgress!.srcAddress,
      'the address is the ingress id',
    );
    const peerData = decodeU32ToBytesMap(reply.headers.get(CreateCircuitV2Header.peerData)!);
    assert.deepEqual(
      [...peerData.get(1003)!],
      [8],
      'the route result’s peer data wins over the terminator’s static one',
    );
    assert.deepEqual([...peerData.get(5000)!], [3]);
    assert.equal(peerData.has(1110), false, 'path addresses are not peer data');
    assert.deepEqual(decodeStringToStringMap(reply.headers.get(CreateCircuitV2Header.responseTags)!), {
      serviceId,
      clientId: dialer.identityId,
      hostId: host.identityId,
    });
    assert.equal(circuits.registry.get(circuitId)?.terminatorId, terminatorIds[0]);
  });

  it('ends the circuit on a fault mid-circuit, unrouting it at the router', async () => {
    const { dial } = await service();
    channel.responder = succeed();
    const reply = await channel.deliver(dialMessage(dial));
    const circuitId = decodeString(reply!.headers.get(CreateCircuitV2Header.responseCircuitId)!);
    await channel.deliver({
      contentType: CtrlType.FaultType,
      headers: new Map(),
      body: toBinary(FaultSchema, create(FaultSchema, { subject: FaultSubject.EgressFault, id: circuitId })),
    });
    assert.equal(circuits.registry.get(circuitId), undefined);
    const unroute = fromBinary(UnrouteSchema, channel.sent.at(-1)!.body);
    assert.deepEqual(
      [channel.sent.at(-1)!.contentType, unroute.circuitId, unroute.now],
      [CtrlType.UnrouteType, circuitId, false],
    );
  });

  it('shows its circuits to the fabric API, and an operator’s delete unroutes at once', async () => {
    const { serviceId, terminatorIds, dial, dialSessionId } = await service();
    channel.responder = succeed();
    const reply = await channel.deliver(dialMessage(dial));
    const circuitId = decodeString(reply!.headers.get(CreateCircuitV2Header.responseCircuitId)!);
    const shown = await circuits.view.get(circuitId);
    assert.deepEqual(
      shown && {
        serviceId: shown.serviceId,
        terminatorId: shown.terminatorId,
        clientId: shown.clientId,
        path: shown.path,
      },
      {
        serviceId,
        terminatorId: terminatorIds[0],
        clientId: dialSessionId,
        path: { routerIds: [routerId], linkIds: [] },
      },
    );
    assert.ok((await circuits.view.list()).some((circuit) => circuit.id === circuitId));
    assert.equal(await circuits.view.remove(circuitId, true), true);
    assert.deepEqual(
      fromBinary(UnrouteSchema, channel.sent.at(-1)!.body),
      create(UnrouteSchema, { circuitId, now: true }),
    );
    assert.equal(await circuits.view.get(circuitId), undefined);
    assert.equal(await circuits.view.remove(circuitId, true), false);
  });

  it('hands a link’s faults to the links, and keeps circuit faults for itself', async () => {
    const linkFaults: string[] = [];
    const links = {
      fault: (_router: string, fault: Fault) => void linkFaults.push(fault.id),
      routerLinks: () => undefined,
      metrics: () => undefined,
    };
    const linkChannel = new FakeChannel();
    serveRouterMessages(linkChannel, routerId, { circuits, links });
    await linkChannel.deliver({
      contentType: CtrlType.FaultType,
      headers: new Map(),
      body: toBinary(FaultSchema, create(FaultSchema, { subject: FaultSubject.LinkFault, id: 'link-1', iteration: 1 })),
    });
    await linkChannel.deliver({
      contentType: CtrlType.FaultType,
      headers: new Map(),
      body: toBinary(FaultSchema, create(FaultSchema, { subject: FaultSubject.ForwardFault, id: 'unknown-circuit' })),
    });
    assert.deepEqual(linkFaults, ['link-1']);
    assert.deepEqual(
      linkChannel.sent.map((message) => fromBinary(UnrouteSchema, message.body).circuitId),
      ['unknown-circuit'],
    );
  });

  it('retries a failed route, and the second attempt carries attempt 1', async () => {
    const { dial } = await service();
    let calls = 0;
    channel.responder = (route) =>
      Promise.resolve(
        routeResult(
          route,
          ++calls === 1 ? { success: false, error: 'connection refused', code: 4 } : { success: true },
        ),
      );
    const reply = await channel.deliver(dialMessage(dial));
    assert.equal(reply?.contentType, EdgeType.CreateCircuitV2ResponseType);
    assert.deepEqual(
      routesSent().map((route) => route.attempt),
      [0, 1],
    );
    assert.equal(new Set(routesSent().map((route) => route.circuitId)).size, 1, 'one circuit id across attempts');
  });

  it('gives up on a route that never answers after the retries, with upstream’s words', async () => {
    const { dial } = await service();
    const reply = await channel.deliver(dialMessage(dial));
    const { code, message } = errorOf(reply);
    assert.equal(code, 1);
    assert.match(
      message,
      /^exceeded maximum \[2\] retries creating circuit \[c\/(\S+)\]: timeout creating routes for \[s\/\1\]$/,
    );
    assert.equal(routesSent().length, 2);
    assert.equal(circuits.registry.size, 0);
  });

  it('answers a dial of a service with no terminator', async () => {
    const { serviceId, dial } = await service({}, []);
    assert.deepEqual(errorOf(await channel.deliver(dialMessage(dial))), {
      code: 1,
      message: `service ${serviceId} has no terminators`,
    });
    assert.equal(routesSent().length, 0);
  });

  it('deletes an edge terminator its router calls invalid', async () => {
    const { terminatorIds, dial } = await service();
    channel.responder = (route) =>
      Promise.resolve(routeResult(route, { success: false, error: 'invalid terminator', code: 1 }));
    const { message } = errorOf(await channel.deliver(dialMessage(dial)));
    // The second attempt finds the terminator gone.
    assert.match(message, /has no terminators$/);
    assert.equal(
      (await t.call({ method: 'GET', url: `/edge/management/v1/terminators/${terminatorIds[0]}`, token: admin }))
        .status,
      404,
    );
  });

  it('chooses by precedence first: a required terminator over a cheaper default one', async () => {
    const { terminatorIds, dial } = await service({ terminatorStrategy: 'random' }, [
      { cost: 0 },
      { cost: 500, precedence: 1 },
    ]);
    channel.responder = succeed();
    await channel.deliver(dialMessage(dial));
    assert.equal(routesSent()[0]!.egress!.destination, terminatorIds[1]);
  });

  it('dials a terminator by its instance id', async () => {
    const { terminatorIds, dial } = await service({}, [{ instanceId: 'a' }, { instanceId: 'b', cost: 100 }]);
    channel.responder = succeed();
    await channel.deliver(dialMessage(dial, undefined, undefined, 'b'));
    assert.equal(routesSent()[0]!.egress!.destination, terminatorIds[1]);
    const { message } = errorOf(await channel.deliver(dialMessage(dial, undefined, undefined, 'c')));
    assert.match(message, /has no terminators for instanceId c$/);
  });

  it('refuses another identity’s certificate, a router the policies exclude, and a bind session', async () => {
    const { serviceId, dial } = await service();
    assert.deepEqual(errorOf(await channel.deliver(dialMessage(dial, undefined, host.fingerprint))), {
      code: 2,
      message: 'invalid api session',
    });
    const closed = await createEdgeRouter(t, admin);
    const elsewhere = new FakeChannel();
    serveRouterMessages(elsewhere, closed, { circuits });
    assert.deepEqual(errorOf(await elsewhere.deliver(dialMessage(dial))), {
      code: 5,
      message: 'invalid edge router for session',
    });
    const bind = (await createSession(t, host.apiSessionToken, serviceId, 'Bind')).token;
    assert.deepEqual(errorOf(await channel.deliver(dialMessage(bind, undefined, host.fingerprint))), {
      code: 4,
      message: 'incorrect session type',
    });
  });

  it('demands the dialler’s public key when the service requires encryption', async () => {
    const { dial } = await service({ encryptionRequired: true });
    channel.responder = succeed();
    assert.deepEqual(errorOf(await channel.deliver(dialMessage(dial, new Map()))), {
      code: 11,
      message: 'encryption required on service, initiator did not send public header',
    });
    assert.equal((await channel.deliver(dialMessage(dial)))?.contentType, EdgeType.CreateCircuitV2ResponseType);
  });

  it('answers a confirmation of unknown circuits, and a result no one waits for, with Unroute', async () => {
    await channel.deliver({
      contentType: CtrlType.CircuitConfirmationType,
      headers: new Map(),
      body: toBinary(CircuitConfirmationSchema, create(CircuitConfirmationSchema, { circuitIds: ['gone'] })),
    });
    await channel.deliver({
      contentType: 1022,
      headers: new Map([[RouteResultHeader.attempt, encodeU32(0)]]),
      body: encodeString('stale'),
    });
    assert.deepEqual(
      channel.sent.map((message) => [message.contentType, fromBinary(UnrouteSchema, message.body).circuitId]),
      [
        [CtrlType.UnrouteType, 'gone'],
        [CtrlType.UnrouteType, 'stale'],
      ],
    );
  });

  it('forgets a disconnected router’s circuits when it stays away past the grace, not before', async () => {
    const { dial } = await service();
    channel.responder = succeed();
    await channel.deliver(dialMessage(dial));
    circuits.detached(routerId);
    t.clock.advance(30_000);
    circuits.tick();
    assert.equal(circuits.registry.size, 1);
    t.clock.advance(30_000);
    circuits.tick();
    assert.equal(circuits.registry.size, 0);
    assert.ok((await readEntity(t, admin, 'edge-routers', routerId)).id);
  });

  it('answers a dial even when the store fails, with an internal error, and refuses past its circuit capacity', async () => {
    const { dial } = await service();
    const failing = new Circuits({
      store: { ...t.deps.store, read: () => Promise.reject(new Error('database is gone')) },
      clock: t.clock,
      logger: pino({ level: 'silent' }),
      routers: { channelOf: () => channel, isOnline: () => true },
    });
    const elsewhere = new FakeChannel();
    serveRouterMessages(elsewhere, routerId, { circuits: failing });
    assert.deepEqual(errorOf(await elsewhere.deliver(dialMessage(dial))), { code: 1, message: 'database is gone' });
    const full = new Circuits({
      store: t.deps.store,
      clock: t.clock,
      logger: pino({ level: 'silent' }),
      routers: { channelOf: () => channel, isOnline: () => true },
      capacity: 0,
    });
    const third = new FakeChannel(succeed());
    serveRouterMessages(third, routerId, { circuits: full });
    assert.deepEqual(errorOf(await third.deliver(dialMessage(dial))), {
      code: 1,
      message: 'this controller holds its maximum of 0 circuits',
    });
  });
});
