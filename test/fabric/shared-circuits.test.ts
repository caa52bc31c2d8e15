// Circuits every instance agrees on (docs/reference/router-control-plane-links.md §5.8): two instances on one database
// (a SQLite file; PostgreSQL under npm run test:postgres), a TypeScript router on each over real TLS. A circuit routed
// by one is listed, detailed, shown in its session's route-path and deleted through the other's REST API exactly as
// through its owner's; an instance that stopped beating takes its circuits with it.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromBinary } from '@bufbuild/protobuf';
import {
  ContentType as EdgeType,
  CreateTerminatorResult,
  CreateTerminatorV2ResponseSchema,
} from '../../src/fabric/messages/gen/edge_ctrl_pb.js';
import { ContentType as CtrlType, RouteSchema, UnrouteSchema } from '../../src/fabric/messages/gen/ctrl_pb.js';
import { CreateCircuitV2Header, RouteResultHeader } from '../../src/fabric/messages/headers.js';
import { decodeString, encodeBool, encodeString, encodeU32 } from '../../src/fabric/channel/header-codecs.js';
import { OFFLINE_AFTER_MS } from '../../src/system/instance-heartbeat.js';
import { testDatabaseUrl } from '../support/test-app.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';
import { assertError } from '../support/conformance.js';
import { createEntity } from '../support/factories.js';
import { createSession } from '../support/sessions.js';
import {
  allowBindAndDial,
  createCircuitRequest,
  createTerminatorRequest,
  type SdkClient,
  sdkClient,
} from '../support/edge-clients.js';
import { enrollEdgeRouter, TestRouter, waitUntil } from '../support/test-router.js';
import { postgresSchema, sqliteFile, type SharedDatabase } from '../support/two-instances.js';

type Entity = Record<string, unknown> & { id: string };

describe(`circuits shared by two instances (${testDatabaseUrl ? 'PostgreSQL' : 'SQLite'})`, () => {
  let database: SharedDatabase;
  let one: TlsTestApp;
  let two: TlsTestApp;
  let admin: string;
  let routerA: TestRouter;
  let routerB: TestRouter;
  let aId: string;
  let host: SdkClient;
  let dialer: SdkClient;
  let serviceId: string;

  const circuits = async (t: TlsTestApp) => {
    const result = await t.call({ method: 'GET', url: '/fabric/v1/circuits?sort=id', token: admin });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Entity[] }).data;
  };
  const ids = async (t: TlsTestApp) => (await circuits(t)).map((circuit) => circuit.id);

  /** A router of `instance` whose every Route succeeds, hosting a terminator of the service. */
  async function hostingRouter(instance: TlsTestApp, name: string): Promise<[TestRouter, string]> {
    const enrolled = await enrollEdgeRouter(one, admin, { name });
    const { port } = await instance.fabric.controlPlane.listen('127.0.0.1', 0);
    const router = await TestRouter.connect({ port, router: enrolled, ca: one.deps.pki.caBundlePem });
    router.channel.handle(CtrlType.RouteType, (message) => {
      const route = fromBinary(RouteSchema, message.body);
      const headers = new Map([
        [RouteResultHeader.attempt, encodeU32(route.attempt)],
        [RouteResultHeader.success, encodeBool(true)],
      ]);
      router.channel.reply(message, { contentType: 1022, headers, body: encodeString(route.circuitId) });
    });
    await instance.fabric.controlPlane.presenceFlushed();
    const bind = (await createSession(one, host.apiSessionToken, serviceId, 'Bind')).token;
    const reply = await router.channel.request(createTerminatorRequest(`${name}-hosted`, bind, host), 5000);
    assert.equal(fromBinary(CreateTerminatorV2ResponseSchema, reply.body).result, CreateTerminatorResult.Success);
    return [router, enrolled.id];
  }

  /** Dials the service through `router`: the circuit's id and its Dial session's. */
  async function dial(router: TestRouter): Promise<{ circuitId: string; sessionId: string }> {
    const session = await createSession(one, dialer.apiSessionToken, serviceId, 'Dial');
    const reply = await router.channel.request(createCircuitRequest(session.token, dialer), 10_000);
    assert.equal(reply.contentType, EdgeType.CreateCircuitV2ResponseType, decodeString(reply.body));
    const circuitId = decodeString(reply.headers.get(CreateCircuitV2Header.responseCircuitId)!);
    return { circuitId, sessionId: session.id };
  }

  before(async () => {
    database = testDatabaseUrl ? await postgresSchema() : sqliteFile();
    one = await buildTlsTestApp(database.options);
    two = await buildTlsTestApp(database.options);
    admin = await one.loginAsAdmin();
    for (const [path, body] of [
      [
        'edge-router-policies',
        { name: 's-erp', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#all'] },
      ],
      [
        'service-edge-router-policies',
        { name: 's-serp', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] },
      ],
    ] as const)
      await createEntity(one, admin, path, body);
    host = await sdkClient(one, admin);
    dialer = await sdkClient(one, admin);
    serviceId = await createEntity(one, admin, 'services', { name: 's-echo', encryptionRequired: false });
    await allowBindAndDial(one, admin, serviceId, host, dialer);
    // The SDKs' certificates are valid from one's (advanced) time on: both instances keep one time.
    two.clock.set(one.clock());
    [routerA, aId] = await hostingRouter(one, 's-a');
    [routerB] = await hostingRouter(two, 's-b');
  });
  after(async () => {
    await Promise.all([routerA, routerB].map((router) => router?.close()));
    await one?.close();
    await two?.close();
    await database?.drop();
  });

  it('lists and details a circuit routed by one instance through the other, as its owner does', async () => {
    const { circuitId, sessionId } = await dial(routerA);
    await waitUntil(async () => (await ids(two)).includes(circuitId));
    const [listedHere, listedThere] = [await circuits(one), await circuits(two)];
    assert.deepEqual(listedThere, listedHere);
    const shown = listedHere.find((circuit) => circuit.id === circuitId);
    assert.deepEqual(
      [shown?.clientId, (shown?.path as { nodes: Array<{ id: string }> }).nodes.map((node) => node.id)],
      [sessionId, [aId]],
    );
    const detail = (t: TlsTestApp) => t.call({ method: 'GET', url: `/fabric/v1/circuits/${circuitId}`, token: admin });
    assert.deepEqual((await detail(two)).body, (await detail(one)).body);
    const routePath = await two.call({
      method: 'GET',
      url: `/edge/management/v1/sessions/${sessionId}/route-path`,
      token: admin,
    });
    assert.deepEqual((routePath.body as { data: unknown }).data, { routePath: [aId] });
  });

  it('deletes through the other instance: its owner ends it, unrouted at its router, and no instance lists it', async () => {
    const { circuitId } = await dial(routerA);
    await waitUntil(async () => (await ids(two)).includes(circuitId));
    const deleted = await two.call({
      method: 'DELETE',
      url: `/fabric/v1/circuits/${circuitId}`,
      token: admin,
      payload: { immediate: true },
    });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(one.fabric.circuits.registry.get(circuitId), undefined);
    const unroute = await routerA.waitFor(
      (m) =>
        m.contentType === Number(CtrlType.UnrouteType) && fromBinary(UnrouteSchema, m.body).circuitId === circuitId,
    );
    assert.equal(fromBinary(UnrouteSchema, unroute.body).now, true);
    assert.ok(!(await ids(two)).includes(circuitId), 'its record went before the delete was answered');
    assert.ok(!(await ids(one)).includes(circuitId));
    assertError(
      await two.call({ method: 'DELETE', url: `/fabric/v1/circuits/${circuitId}`, token: admin }),
      404,
      'NOT_FOUND',
    );
  });

  // Last: instance two is left for dead.
  it('lists no circuit of an instance that stopped beating, nor deletes one', async () => {
    const { circuitId } = await dial(routerB);
    await waitUntil(async () => (await ids(one)).includes(circuitId));
    one.clock.advance(OFFLINE_AFTER_MS + 1000);
    await one.deps.heartbeat.beat();
    assert.ok(!(await ids(one)).includes(circuitId));
    assertError(
      await one.call({ method: 'GET', url: `/fabric/v1/circuits/${circuitId}`, token: admin }),
      404,
      'NOT_FOUND',
    );
    assertError(
      await one.call({ method: 'DELETE', url: `/fabric/v1/circuits/${circuitId}`, token: admin }),
      404,
      'NOT_FOUND',
    );
  });
});
