// A router's fabric xgress listener asking for circuits end to end: a TypeScript router over real TLS sends
// CircuitRequest (1000) as a v1.1.8 router's `binding: proxy` listener does, and is answered with CircuitSuccess (1001)
// or CircuitFailed (1016) in upstream's words (controller/handler_ctrl/circuit_request.go), the circuit routed,
// listed and told to events like any other.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  ContentType as CtrlType,
  FaultSchema,
  FaultSubject,
  RouteSchema,
  type Route,
} from '../../src/fabric/messages/gen/ctrl_pb.js';
import { RouteResultHeader } from '../../src/fabric/messages/headers.js';
import { decodeString, encodeBool, encodeString, encodeU32 } from '../../src/fabric/channel/header-codecs.js';
import type { CircuitEvent } from '../../src/events/event-types.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';
import { createEntity } from '../support/factories.js';
import { enrollEdgeRouter, TestRouter, waitUntil } from '../support/test-router.js';

/** A peer-data key the hosting side answers with (any key outside the path headers is the dialler's). */
const HOST_PEER_KEY = 77;
const bytes = (text: string) => new TextEncoder().encode(text);

describe('a router’s fabric CircuitRequest (proxy, proxy_udp and transport listeners)', () => {
  let t: TlsTestApp;
  let admin: string;
  let router: TestRouter;
  let serviceId: string;
  let terminatorId: string;
  const routes: Route[] = [];
  const events: CircuitEvent[] = [];

  before(async () => {
    t = await buildTlsTestApp();
    admin = await t.loginAsAdmin();
    t.events.dispatcher.subscribe([{ type: 'fabric.circuits' }], {
      accept: (event) => {
        if (event.namespace === 'fabric.circuits') events.push(event);
      },
    });
    const ctrlPort = (await t.fabric.controlPlane.listen('127.0.0.1', 0)).port;
    const enrolled = await enrollEdgeRouter(t, admin, { name: 'proxy-router' });
    serviceId = await createEntity(t, admin, 'services', { name: 'echo', encryptionRequired: true });
    await createEntity(t, admin, 'services', { name: 'unhosted', encryptionRequired: false });
    terminatorId = await createEntity(t, admin, 'terminators', {
      service: serviceId,
      router: enrolled.id,
      binding: 'transport',
      address: 'tcp:127.0.0.1:7',
    });
    router = await TestRouter.connect({ port: ctrlPort, router: enrolled, ca: t.deps.pki.caBundlePem });
    // The router hosts the terminator too: it answers every Route as its transport dialer would, with peer data.
    router.channel.handle(CtrlType.RouteType, (message) => {
      const route = fromBinary(RouteSchema, message.body);
      routes.push(route);
      router.channel.reply(message, {
        contentType: 1022,
        headers: new Map([
          [RouteResultHeader.attempt, encodeU32(route.attempt)],
          [RouteResultHeader.success, encodeBool(true)],
          [HOST_PEER_KEY, bytes('from the host')],
        ]),
        body: encodeString(route.circuitId),
      });
    });
  });
  after(async () => {
    await router?.close();
    await t.close();
  });

  it('routes a proxy listener’s request by service name and answers CircuitSuccess in upstream’s form', async () => {
    const answer = await router.requestCircuit('echo');
    assert.ok(answer.success, !answer.success ? answer.reason : '');
    assert.match(answer.circuitId, /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/);
    const route = routes.find((candidate) => candidate.circuitId === answer.circuitId);
    assert.ok(route, 'the router was sent the Route');
    assert.deepEqual([route.egress?.binding, route.egress?.destination], ['transport', 'tcp:127.0.0.1:7']);
    // The ingress side reads its xgress address from header 1100: the Route's forward from it.
    assert.equal(route.forwards[0]?.srcAddress, answer.address);
    // No edge session: the tags name the service and the host, not a dialling identity; the encryption the service
    // requires is the edge's rule, not the fabric's (upstream asks no public key here).
    assert.deepEqual(route.tags, { serviceId, hostId: '' });
    assert.equal(decodeString(answer.peerData.get(HOST_PEER_KEY)!), 'from the host');

    const shown = await t.call({ method: 'GET', url: `/fabric/v1/circuits/${answer.circuitId}`, token: admin });
    assert.equal(shown.status, 200, shown.text);
    const circuit = (shown.body as { data: { service: { id: string }; terminator: { id: string }; tags: unknown } })
      .data;
    assert.deepEqual([circuit.service.id, circuit.terminator.id], [serviceId, terminatorId]);
    // A proxy listener's request has no ingress id: upstream leaves the empty clientId out.
    assert.equal('clientId' in circuit, false);
    assert.deepEqual(circuit.tags, { serviceId, hostId: '' });

    const created = events.find((event) => event.event_type === 'created' && event.circuit_id === answer.circuitId);
    assert.ok(created, 'a circuit created event');
    assert.deepEqual([created.service_id, created.client_id, created.tags], [serviceId, '', { serviceId, hostId: '' }]);
  });

  it('finds the service by id as well, and passes the request’s ingress id and peer data on', async () => {
    const answer = await router.requestCircuit(serviceId, {
      ingressId: 'transport-client-1',
      peerData: { 9: bytes('initiator') },
    });
    assert.ok(answer.success, !answer.success ? answer.reason : '');
    const route = routes.find((candidate) => candidate.circuitId === answer.circuitId);
    assert.equal(decodeString(route?.egress?.peerData[9] ?? new Uint8Array()), 'initiator');
    const created = events.find((event) => event.event_type === 'created' && event.circuit_id === answer.circuitId);
    assert.equal(created?.client_id, 'transport-client-1');
  });

  it('answers an unknown service with CircuitFailed in upstream’s words, and a failed event', async () => {
    const answer = await router.requestCircuit('nope');
    assert.deepEqual(answer, { success: false, reason: 'service with id nope not found' });
    const failed = events.find((event) => event.event_type === 'failed' && event.service_id === 'nope');
    assert.ok(failed, 'a circuit failed event');
    assert.deepEqual([failed.failure_cause, failed.tags], ['INVALID_SERVICE', { serviceId: 'nope' }]);
    // A name no service can have (PostgreSQL text holds no NUL) is not found on either store, not an internal error.
    assert.deepEqual(await router.requestCircuit('a\u0000b'), {
      success: false,
      reason: 'service with id a\u0000b not found',
    });
    // `instance@service` names a service id after the `@`; a name there is not looked up, as upstream.
    assert.deepEqual(await router.requestCircuit('one@echo'), {
      success: false,
      reason: 'service with id echo not found',
    });
  });

  it('answers a service without terminators, and an absent terminator instance, with CircuitFailed', async () => {
    const unhosted = await router.requestCircuit('unhosted');
    assert.equal(unhosted.success, false);
    assert.match(!unhosted.success ? unhosted.reason : '', /^service \S+ has no terminators$/);
    assert.deepEqual(await router.requestCircuit(`one@${serviceId}`), {
      success: false,
      reason: `service ${serviceId} has no terminators for instanceId one`,
    });
    const failed = events.find((event) => event.event_type === 'failed' && event.failure_cause === 'NO_TERMINATORS');
    assert.ok(failed, 'a circuit failed event');
  });

  it('refuses an ingress id no store can record (a NUL character) before it makes a circuit', async () => {
    const before = routes.length;
    assert.deepEqual(await router.requestCircuit('echo', { ingressId: 'x\u0000y' }), {
      success: false,
      reason: 'invalid ingress id: it holds a NUL character (U+0000)',
    });
    assert.equal(routes.length, before);
  });

  it('answers a request it cannot decode with CircuitFailed, not silence', async () => {
    const reply = await router.channel.request(
      { contentType: CtrlType.CircuitRequestType, headers: new Map(), body: Uint8Array.of(0x0a, 0x05, 0x61) },
      5000,
    );
    assert.equal(reply.contentType, 1016);
    assert.match(decodeString(reply.body), /^could not decode CircuitRequest: /);
  });

  it('ends the circuit when its ingress reports the connection closed (Fault), as any other', async () => {
    const answer = await router.requestCircuit('echo');
    assert.ok(answer.success);
    const fault = create(FaultSchema, { subject: FaultSubject.IngressFault, id: answer.circuitId });
    router.channel.send({ contentType: CtrlType.FaultType, headers: new Map(), body: toBinary(FaultSchema, fault) });
    await waitUntil(() =>
      Promise.resolve(events.some((event) => event.event_type === 'deleted' && event.circuit_id === answer.circuitId)),
    );
    const shown = await t.call({ method: 'GET', url: `/fabric/v1/circuits/${answer.circuitId}`, token: admin });
    assert.equal(shown.status, 404);
  });
});
