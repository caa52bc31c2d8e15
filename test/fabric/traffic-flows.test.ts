// Terminators and circuits end to end: a TypeScript router over real TLS with its enrolled certificate binds a
// service for one SDK and routes another SDK's dial to it, as a v1.1.8 router asks the controller to.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  ContentType as EdgeType,
  CreateTerminatorResult,
  CreateTerminatorV2ResponseSchema,
} from '../../src/fabric/messages/gen/edge_ctrl_pb.js';
import {
  ContentType as CtrlType,
  FaultSchema,
  FaultSubject,
  RouteSchema,
  UnrouteSchema,
} from '../../src/fabric/messages/gen/ctrl_pb.js';
import { CreateCircuitV2Header, RouteResultHeader } from '../../src/fabric/messages/headers.js';
import {
  decodeString,
  decodeStringToStringMap,
  decodeU32ToBytesMap,
  encodeBool,
  encodeString,
  encodeU32,
} from '../../src/fabric/channel/header-codecs.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';
import { createEntity, readEntity } from '../support/factories.js';
import { createSession } from '../support/sessions.js';
import {
  allowBindAndDial,
  createCircuitRequest,
  createTerminatorRequest,
  type SdkClient,
  sdkClient,
} from '../support/edge-clients.js';
import { enrollEdgeRouter, TestRouter, waitUntil, type EnrolledRouter } from '../support/test-router.js';

describe('SDK traffic through a router', () => {
  let t: TlsTestApp;
  let admin: string;
  let enrolled: EnrolledRouter;
  let router: TestRouter;
  let host: SdkClient;
  let dialer: SdkClient;
  let serviceId: string;

  before(async () => {
    t = await buildTlsTestApp();
    admin = await t.loginAsAdmin();
    const ctrlPort = (await t.fabric.controlPlane.listen('127.0.0.1', 0)).port;
    enrolled = await enrollEdgeRouter(t, admin, { name: 'traffic-router' });
    await createEntity(t, admin, 'edge-router-policies', {
      name: 'erp-traffic',
      semantic: 'AnyOf',
      identityRoles: ['#all'],
      edgeRouterRoles: [`@${enrolled.id}`],
    });
    await createEntity(t, admin, 'service-edge-router-policies', {
      name: 'serp-traffic',
      semantic: 'AnyOf',
      serviceRoles: ['#all'],
      edgeRouterRoles: [`@${enrolled.id}`],
    });
    host = await sdkClient(t, admin);
    dialer = await sdkClient(t, admin);
    serviceId = await createEntity(t, admin, 'services', { name: 'echo', encryptionRequired: false });
    await allowBindAndDial(t, admin, serviceId, host, dialer);
    router = await TestRouter.connect({ port: ctrlPort, router: enrolled, ca: t.deps.pki.caBundlePem });
    // The hosting SDK is reached over the router's edge connection: here the router answers every Route itself.
    router.channel.handle(CtrlType.RouteType, (message) => {
      const route = fromBinary(RouteSchema, message.body);
      router.channel.reply(message, {
        contentType: 1022,
        headers: new Map([
          [RouteResultHeader.attempt, encodeU32(route.attempt)],
          [RouteResultHeader.success, encodeBool(true)],
          [1003, Uint8Array.of(42)],
        ]),
        body: encodeString(route.circuitId),
      });
    });
  });
  after(async () => {
    await router?.close();
    await t.close();
  });

  it('binds, dials, carries the circuit and ends it on a fault', async () => {
    const bind = (await createSession(t, host.apiSessionToken, serviceId, 'Bind')).token;
    const terminatorReply = await router.channel.request(createTerminatorRequest('hosted-echo', bind, host), 5000);
    assert.equal(terminatorReply.contentType, EdgeType.CreateTerminatorV2ResponseType);
    assert.equal(
      fromBinary(CreateTerminatorV2ResponseSchema, terminatorReply.body).result,
      CreateTerminatorResult.Success,
    );
    const terminator = await readEntity(t, admin, 'terminators', 'hosted-echo');
    assert.deepEqual([terminator.binding, terminator.routerId, terminator.serviceId], ['edge', enrolled.id, serviceId]);

    const dialSession = await createSession(t, dialer.apiSessionToken, serviceId, 'Dial');
    const dial = dialSession.token;
    const circuitReply = await router.channel.request(createCircuitRequest(dial, dialer, true), 5000);
    assert.equal(circuitReply.contentType, EdgeType.CreateCircuitV2ResponseType, decodeString(circuitReply.body));
    const circuitId = decodeString(circuitReply.headers.get(CreateCircuitV2Header.responseCircuitId)!);
    assert.deepEqual(
      [...decodeU32ToBytesMap(circuitReply.headers.get(CreateCircuitV2Header.peerData)!).get(1003)!],
      [42],
    );
    assert.equal(
      decodeStringToStringMap(circuitReply.headers.get(CreateCircuitV2Header.responseTags)!).hostId,
      host.identityId,
    );
    assert.equal(t.fabric.circuits.registry.get(circuitId)?.routerId, enrolled.id);
    // upstream SessionRouter.DetailRoutePath: the routers of the session's circuit.
    const routePath = await t.call({
      method: 'GET',
      url: `/edge/management/v1/sessions/${dialSession.id}/route-path`,
      token: admin,
    });
    assert.equal(routePath.status, 200, routePath.text);
    assert.deepEqual((routePath.body as { data: unknown }).data, { routePath: [enrolled.id] });

    router.channel.send({
      contentType: CtrlType.FaultType,
      headers: new Map(),
      body: toBinary(FaultSchema, create(FaultSchema, { subject: FaultSubject.IngressFault, id: circuitId })),
    });
    const unroute = await router.waitFor((message) => message.contentType === Number(CtrlType.UnrouteType));
    assert.equal(fromBinary(UnrouteSchema, unroute.body).circuitId, circuitId);
    await waitUntil(() => Promise.resolve(t.fabric.circuits.registry.size === 0));
  });
});
