// The router-embedded tunneler end to end: a TypeScript router over real TLS, tunneler-enabled, speaks the tunnel
// messages as a v1.1.8 router with a `binding: tunnel` listener does (router/xgress_edge_tunnel), hosting a service
// with a `tunnel` terminator and dialing it.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromBinary } from '@bufbuild/protobuf';
import { ContentType as CtrlType, RouteSchema } from '../../src/fabric/messages/gen/ctrl_pb.js';
import { TerminatorPrecedence } from '../../src/fabric/messages/gen/edge_ctrl_pb.js';
import { RouteResultHeader } from '../../src/fabric/messages/headers.js';
import { encodeBool, encodeString, encodeU32 } from '../../src/fabric/channel/header-codecs.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';
import { createEntity, readEntity } from '../support/factories.js';
import { enrollEdgeRouter, TestRouter, waitUntil, type EnrolledRouter } from '../support/test-router.js';
import { terminatorById } from '../../src/store/queries/terminators.js';
import { TunnelRefusal } from '../support/test-router-tunnel.js';

const decoder = new TextDecoder();

describe('a router’s embedded tunneler', () => {
  let t: TlsTestApp;
  let admin: string;
  let ctrlPort: number;
  let enrolled: EnrolledRouter;
  let router: TestRouter;
  let serviceId: string;
  let bindPolicyId: string;

  before(async () => {
    t = await buildTlsTestApp();
    admin = await t.loginAsAdmin();
    ctrlPort = (await t.fabric.controlPlane.listen('127.0.0.1', 0)).port;
    enrolled = await enrollEdgeRouter(t, admin, { name: 'tunneler', isTunnelerEnabled: true });
    await createEntity(t, admin, 'service-edge-router-policies', {
      name: 'serp-all',
      semantic: 'AnyOf',
      serviceRoles: ['#all'],
      edgeRouterRoles: ['#all'],
    });
    const hostConfig = await createEntity(t, admin, 'configs', {
      name: 'echo-host',
      configTypeId: 'NH5p4FpGR',
      data: { protocol: 'tcp', address: '127.0.0.1', port: 7 },
    });
    serviceId = await createEntity(t, admin, 'services', {
      name: 'echo',
      encryptionRequired: false,
      configs: [hostConfig],
    });
    bindPolicyId = await createEntity(t, admin, 'service-policies', {
      name: 'router-binds',
      type: 'Bind',
      semantic: 'AnyOf',
      identityRoles: [`@${enrolled.id}`],
      serviceRoles: [`@${serviceId}`],
    });
    await createEntity(t, admin, 'service-policies', {
      name: 'router-dials',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`@${enrolled.id}`],
      serviceRoles: [`@${serviceId}`],
    });
    router = await TestRouter.connect({ port: ctrlPort, router: enrolled, ca: t.deps.pki.caBundlePem });
    // The hosting side is the router itself: it answers every Route as its tunnel's dialer would.
    router.channel.handle(CtrlType.RouteType, (message) => {
      const route = fromBinary(RouteSchema, message.body);
      router.channel.reply(message, {
        contentType: 1022,
        headers: new Map([
          [RouteResultHeader.attempt, encodeU32(route.attempt)],
          [RouteResultHeader.success, encodeBool(true)],
        ]),
        body: encodeString(route.circuitId),
      });
    });
  });
  after(async () => {
    await router?.close();
    await t.close();
  });

  it('refuses a router that is not tunneler-enabled with upstream’s code 7', async () => {
    const plain = await enrollEdgeRouter(t, admin, { name: 'plain' });
    const other = await TestRouter.connect({ port: ctrlPort, router: plain, ca: t.deps.pki.caBundlePem });
    try {
      await assert.rejects(other.tunnel.authenticate(), (error: unknown) => {
        assert.ok(error instanceof TunnelRefusal);
        assert.deepEqual([error.code, error.message], [7, 'tunneling not enabled']);
        return true;
      });
    } finally {
      await other.close();
    }
  });

  it('answers CreateApiSession with an API session of the router’s own identity, synchronised to the router', async () => {
    const response = await router.tunnel.authenticate();
    assert.deepEqual([response.identityId, response.identityName], [enrolled.id, 'tunneler']);
    assert.equal(response.refreshIntervalSeconds, 30 * 60 - 10);
    assert.equal(response.defaultHostingPrecedence, TerminatorPrecedence.Default);
    await router.edge.until(() => router.edge.apiSessions.has(response.token));
    // Asked again on this channel: the same API session.
    assert.equal((await router.tunnel.authenticate()).token, response.token);
    const identity = await readEntity(t, admin, 'identities', enrolled.id);
    assert.equal((identity.sdkInfo as { type: string }).type, 'ziti-router:tunnel');
  });

  it('sends the service list with configs, and again only when it changed', async () => {
    const list = await router.tunnel.pollServices(2000);
    assert.ok(list, 'a first list');
    assert.deepEqual(
      list.services.map((service) => [service.name, service.permissions]),
      [['echo', ['Bind', 'Dial']]],
    );
    const config = JSON.parse(decoder.decode(list.services[0]!.config)) as Record<string, unknown>;
    assert.deepEqual(config['host.v1'], { protocol: 'tcp', address: '127.0.0.1', port: 7 });
    assert.equal(list.lastUpdate.length, 15);
    assert.equal(await router.tunnel.pollServices(), undefined, 'unchanged: not resent');
    t.clock.advance(1000);
    const other = await createEntity(t, admin, 'services', { name: 'other', encryptionRequired: false });
    await createEntity(t, admin, 'service-policies', {
      name: 'router-dials-other',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`@${enrolled.id}`],
      serviceRoles: [`@${other}`],
    });
    const changed = await router.tunnel.pollServices(2000);
    assert.deepEqual(
      changed?.services.map((service) => service.name),
      ['echo', 'other'],
    );
  });

  let bindSession = '';

  it('hosts the service with a terminator of binding tunnel, reused when asked again', async () => {
    const created = await router.tunnel.createTerminator({
      serviceName: 'echo',
      address: 'tunnel-t1',
      cost: 10,
      precedence: TerminatorPrecedence.Default,
      startTime: 1234n,
    });
    assert.equal(created.terminatorId, 'tunnel-t1');
    assert.equal(created.startTime, 1234n);
    assert.ok(created.session?.sessionId);
    bindSession = created.session.token;
    const terminator = await t.deps.store.read((db) => terminatorById(db, 'tunnel-t1'));
    assert.deepEqual(
      [terminator?.binding, terminator?.router_id, terminator?.service_id, terminator?.host_id, terminator?.cost],
      ['tunnel', enrolled.id, serviceId, enrolled.id, 10],
    );
    const again = await router.tunnel.createTerminator({
      serviceName: 'echo',
      sessionId: created.session.sessionId,
      address: 'tunnel-t1',
      cost: 20,
    });
    assert.equal(again.session?.sessionId, created.session.sessionId);
    assert.equal((await readEntity(t, admin, 'terminators', 'tunnel-t1')).cost, 20);
    await assert.rejects(router.tunnel.createTerminator({ serviceName: 'nope', address: 'x' }), (error: unknown) => {
      assert.ok(error instanceof TunnelRefusal);
      assert.deepEqual([error.code, error.message], [6, 'invalid service']);
      return true;
    });
  });

  it('dials the service: a circuit to the tunnel terminator, tagged with the router’s identity', async () => {
    const response = await router.tunnel.createCircuit({ serviceName: 'echo' });
    assert.ok(response.circuitId);
    assert.ok(response.session?.token);
    assert.deepEqual([response.tags.clientId, response.tags.hostId], [enrolled.id, enrolled.id]);
    assert.equal(t.fabric.circuits.registry.get(response.circuitId)?.terminatorId, 'tunnel-t1');
  });

  it('updates cost and precedence (a failing health check), checks health events, removes its terminator', async () => {
    await router.tunnel.updateTerminator({
      terminatorId: 'tunnel-t1',
      updatePrecedence: true,
      precedence: TerminatorPrecedence.Failed,
    });
    assert.equal((await readEntity(t, admin, 'terminators', 'tunnel-t1')).precedence, 'failed');
    router.tunnel.healthEvent('tunnel-t1', false);
    await router.tunnel.removeTerminator('tunnel-t1');
    await assert.rejects(router.tunnel.removeTerminator('tunnel-t1'), (error: unknown) => {
      assert.ok(error instanceof TunnelRefusal);
      assert.deepEqual([error.code, error.message], [8, 'invalid terminator: not found']);
      return true;
    });
  });

  it('loses its bind session when a policy change takes Bind away, as an SDK does', async () => {
    await router.tunnel.createTerminator({ serviceName: 'echo', address: 'tunnel-t2' });
    t.clock.advance(1000);
    const res = await t.call({
      method: 'DELETE',
      url: `/edge/management/v1/service-policies/${bindPolicyId}`,
      token: admin,
    });
    assert.equal(res.status, 200);
    await waitUntil(() => Promise.resolve(router.edge.removedSessions.includes(bindSession)));
    const list = await router.tunnel.pollServices(2000);
    assert.deepEqual(
      list?.services.map((service) => [service.name, service.permissions]),
      [
        ['echo', ['Dial']],
        ['other', ['Dial']],
      ],
    );
  });
});
