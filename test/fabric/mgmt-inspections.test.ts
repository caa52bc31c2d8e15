// Inspections and validations against a listening controller with the TypeScript test router connected over real
// TLS: `POST /fabric/v1/inspections` (what `ziti fabric inspect` calls), the management channel's InspectRequest, and
// `validate terminators | router-links | router-sdk-terminators` over /fabric/v1/ws-api as the v1.1.8 CLI sends them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { create, fromBinary, toBinary, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import {
  ContentType as MgmtType,
  InspectRequestSchema,
  InspectResponseSchema,
  LinkState,
  RouterLinkDetailsSchema,
  RouterSdkTerminatorsDetailsSchema,
  TerminatorDetailSchema,
  TerminatorState,
  ValidateRouterLinksRequestSchema,
  ValidateRouterLinksResponseSchema,
  ValidateRouterSdkTerminatorsRequestSchema,
  ValidateRouterSdkTerminatorsResponseSchema,
  ValidateTerminatorsRequestSchema,
  ValidateTerminatorsResponseSchema,
} from '../../src/fabric/messages/gen/mgmt_pb.js';
import { TerminatorInvalidReason } from '../../src/fabric/messages/gen/ctrl_pb.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';
import { enrollEdgeRouter, TestRouter, type EnrolledRouter } from '../support/test-router.js';
import { openMgmtClient, type MgmtClient } from '../support/mgmt-client.js';
import { createService, createUser, login } from '../support/factories.js';

describe('inspections and validations with a connected router', () => {
  let t: TlsTestApp;
  let token: string;
  let router: EnrolledRouter;
  let offline: EnrolledRouter;
  let connected: TestRouter;
  let client: MgmtClient;
  const terminatorIds: string[] = [];

  before(async () => {
    t = await buildTlsTestApp();
    token = await t.loginAsAdmin();
    const ctrlPort = (await t.fabric.controlPlane.listen('127.0.0.1', 0)).port;
    router = await enrollEdgeRouter(t, token, { name: 'router-a' });
    offline = await enrollEdgeRouter(t, token, { name: 'router-b' });
    connected = await TestRouter.connect({ port: ctrlPort, router, ca: t.deps.pki.caBundlePem });
    await t.fabric.controlPlane.presenceFlushed();
    const service = await createService(t, token, { name: 'svc-one' });
    for (const [at, address] of [
      [router.id, 'a1'],
      [router.id, 'a2'],
      [offline.id, 'b1'],
    ] as const) {
      const created = await t.call({
        method: 'POST',
        url: '/edge/management/v1/terminators',
        token,
        payload: { service, router: at, binding: 'edge', address },
      });
      assert.equal(created.status, 201, created.text);
      terminatorIds.push((created.body as { data: { id: string } }).data.id);
    }
    client = await openMgmtClient(`wss://127.0.0.1:${t.port}/fabric/v1/ws-api`, token, t.rootCa);
  });
  after(async () => {
    await client.close();
    await connected.close();
    await t.close();
  });

  const ask = async <Q extends DescMessage, R extends DescMessage>(
    type: number,
    schema: Q,
    body: MessageInitShape<Q>,
    answer: R,
  ) => {
    const reply = await client.channel.request(
      { contentType: type, headers: new Map(), body: toBinary(schema, create(schema, body)) },
      15_000,
    );
    return fromBinary(answer, reply.body);
  };

  it('answers POST /fabric/v1/inspections for the controller and the routers the regex matches', async () => {
    connected.inspect.values.set('links', '{"links":null,"destinations":null,"errors":null}');
    const inspect = (appRegex: string, requestedValues: string[]) =>
      t.call({ method: 'POST', url: '/fabric/v1/inspections', token, payload: { appRegex, requestedValues } });
    const all = await inspect('.*', ['links', 'connected-routers']);
    assert.equal(all.status, 200, all.text);
    const body = all.body as { success: boolean; errors: string[] | null; values: Record<string, unknown>[] };
    assert.equal(body.success, true);
    assert.equal(body.errors, null);
    const routers = body.values.find((value) => value.name === 'connected-routers');
    assert.equal(routers?.appId, t.deps.clusterId);
    assert.deepEqual(
      (routers?.value as Record<string, unknown>[]).map((entry) => [entry.Id, entry.Name, entry.Version]),
      [[router.id, 'router-a', 'v1.1.8']],
    );
    assert.deepEqual(
      body.values.find((value) => value.appId === router.id),
      { appId: router.id, name: 'links', value: { links: null, destinations: null, errors: null } },
    );
    // By name: only the router; the controller is not asked.
    const byName = (await inspect('^router-a$', ['stackdump', 'links'])).body as { values: { appId: string }[] };
    assert.deepEqual(
      byName.values.map((value) => value.appId),
      [router.id],
    );
    const config = (await inspect(t.deps.clusterId, ['config'])).body as {
      values: { value: Record<string, unknown> }[];
    };
    assert.equal(config.values.length, 1);
    assert.equal(JSON.stringify(config.values[0]!.value).includes('admin-password'), false, 'no secrets in config');
    // What upstream answers only in a raft cluster, or from state kept here otherwise, or from a metrics registry
    // this controller keeps only with `metrics.address`: no value, as upstream answers a name it does not know.
    const none = (await inspect(t.deps.clusterId, ['cluster-config', 'connected-peers', 'router-messaging', 'metrics']))
      .body as { success: boolean; values: unknown[] | null };
    assert.deepEqual([none.success, none.values], [true, null], 'Go writes the empty list as null');
    // A router's metrics (Go's json.Marshal of its MetricsMessage) come back as the metrics events they hold.
    connected.inspect.values.set(
      'metrics',
      '{"eventId":"e","sourceId":"r","timestamp":{"seconds":1795946401,"nanos":5000},"intValues":{"xgress.count":3},' +
        '"meters":{"tx.bytes":{"count":7,"m1Rate":0.5}}}',
    );
    const metrics = (await inspect('^router-a$', ['metrics'])).body as { values: { value: unknown }[] };
    assert.deepEqual(
      (metrics.values[0]!.value as Record<string, unknown>[]).map((event) => [
        event.metric,
        event.metric_type,
        event.metrics,
        event.source_id,
        event.timestamp,
      ]),
      [
        ['xgress.count', 'intValue', { value: 3 }, 'r', '2026-11-29T10:00:01.000005Z'],
        [
          'tx.bytes',
          'meter',
          { count: 7, m1_rate: 0.5, m15_rate: 0, m5_rate: 0, mean_rate: 0 },
          'r',
          '2026-11-29T10:00:01.000005Z',
        ],
      ],
    );
    const bad = (await inspect('(', ['stackdump'])).body as { success: boolean; errors: string[] };
    assert.equal(bad.success, false);
    assert.match(bad.errors[0]!, new RegExp(`^${t.deps.clusterId}: error parsing regexp`));
    const refused = await t.call({
      method: 'POST',
      url: '/fabric/v1/inspections',
      payload: { appRegex: '.*', requestedValues: ['stackdump'] },
    });
    assert.equal(refused.status, 401);
  });

  it('opens the management channel to an admin only: 401 with the error envelope for anyone else', async () => {
    const user = await createUser(t, token);
    const userToken = await login(t, user.username, user.password, 'management');
    const url = `wss://127.0.0.1:${t.port}/fabric/v1/ws-api`;
    await assert.rejects(openMgmtClient(url, userToken, t.rootCa), /Unexpected server response: 401/);
    await assert.rejects(openMgmtClient(url, undefined, t.rootCa), /Unexpected server response: 401/);
    const refused = await t.https({
      path: '/fabric/v1/ws-api',
      headers: { connection: 'Upgrade', upgrade: 'websocket' },
    });
    assert.equal(refused.status, 401);
    assert.equal((refused.json as { error: { code: string } }).error.code, 'UNAUTHORIZED');
  });

  it("answers the management channel's InspectRequest with the controller's stackdump", async () => {
    const response = await ask(
      MgmtType.InspectRequestType,
      InspectRequestSchema,
      { appRegex: t.deps.clusterId, requestedValues: ['stackdump'] },
      InspectResponseSchema,
    );
    assert.equal(response.success, true);
    assert.equal(response.values.length, 1);
    assert.match(response.values[0]!.value, /^JavaScript stack:$/m);
  });

  it('validates terminators with their routers, fixing the invalid ones when asked', async () => {
    connected.inspect.invalidTerminators.set(terminatorIds[1]!, TerminatorInvalidReason.UnknownTerminator);
    const response = await ask(
      MgmtType.ValidateTerminatorsRequestType,
      ValidateTerminatorsRequestSchema,
      { filter: '', fixInvalid: true },
      ValidateTerminatorsResponseSchema,
    );
    assert.deepEqual([response.success, response.terminatorCount], [true, 3n]);
    const details = (await client.waitFor(MgmtType.ValidateTerminatorResultType, 3)).map((message) =>
      fromBinary(TerminatorDetailSchema, message.body),
    );
    const byId = new Map(details.map((detail) => [detail.terminatorId, detail]));
    assert.deepEqual(
      terminatorIds.map((id) => {
        const detail = byId.get(id)!;
        return [detail.state, detail.fixed, detail.detail, detail.serviceName, detail.routerName];
      }),
      [
        [TerminatorState.Valid, false, '', 'svc-one', 'router-a'],
        [TerminatorState.InvalidUnknownTerminator, true, 'not hosted here', 'svc-one', 'router-a'],
        [TerminatorState.Unknown, false, 'router off-line', 'svc-one', 'router-b'],
      ],
    );
    const gone = await t.call({ method: 'GET', url: `/fabric/v1/terminators/${terminatorIds[1]}`, token });
    assert.equal(gone.status, 404);
    const badFilter = await ask(
      MgmtType.ValidateTerminatorsRequestType,
      ValidateTerminatorsRequestSchema,
      { filter: 'nonsense ===' },
      ValidateTerminatorsResponseSchema,
    );
    assert.equal(badFilter.success, false);
    assert.match(badFilter.message, new RegExp(`^${t.deps.clusterId}: failed to unmarshall request: `));
  });

  it("validates router links and sdk terminators against each router's own view", async () => {
    connected.inspect.values.set(
      'links',
      JSON.stringify({ links: [{ id: 'link-x', dest: offline.id, dialed: true }], destinations: null, errors: null }),
    );
    connected.inspect.values.set(
      'sdk-terminators',
      JSON.stringify({
        entries: [
          { id: terminatorIds[0], state: 'established', establishActive: false, createTime: 't0', lastAttempt: 't1' },
          { id: 'stray', state: 'established', establishActive: false, createTime: 't0', lastAttempt: 't1' },
        ],
        errors: null,
      }),
    );
    const links = await ask(
      MgmtType.ValidateRouterLinksRequestType,
      ValidateRouterLinksRequestSchema,
      { filter: 'true' },
      ValidateRouterLinksResponseSchema,
    );
    assert.deepEqual([links.success, links.routerCount], [true, 2n]);
    const linkDetails = (await client.waitFor(MgmtType.ValidateRouterLinksResultType, 2)).map((message) =>
      fromBinary(RouterLinkDetailsSchema, message.body),
    );
    const ofOffline = linkDetails.find((detail) => detail.routerId === offline.id)!;
    assert.deepEqual([ofOffline.validateSuccess, ofOffline.message], [false, 'router not connected']);
    const ofConnected = linkDetails.find((detail) => detail.routerId === router.id)!;
    assert.equal(ofConnected.validateSuccess, true);
    assert.deepEqual(
      ofConnected.linkDetails.map((detail) => [detail.linkId, detail.ctrlState, detail.destConnected, detail.isValid]),
      [['link-x', LinkState.LinkUnknown, false, true]],
    );

    const sdk = await ask(
      MgmtType.ValidateRouterSdkTerminatorsRequestType,
      ValidateRouterSdkTerminatorsRequestSchema,
      { filter: 'name = "router-a"' },
      ValidateRouterSdkTerminatorsResponseSchema,
    );
    assert.deepEqual([sdk.success, sdk.routerCount], [true, 1n]);
    const [sdkDetails] = (await client.waitFor(MgmtType.ValidateRouterSdkTerminatorsResultType, 1)).map((message) =>
      fromBinary(RouterSdkTerminatorsDetailsSchema, message.body),
    );
    assert.deepEqual(
      sdkDetails!.details.map((detail) => [detail.terminatorId, detail.ctrlState, detail.routerState, detail.isValid]),
      [
        [terminatorIds[0], TerminatorState.Valid, 'established', true],
        ['stray', TerminatorState.Unknown, 'established', false],
      ],
    );
  });
});
