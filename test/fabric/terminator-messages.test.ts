import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import pino from 'pino';
import { Terminators } from '../../src/fabric/terminators/terminators.js';
import { Strategies } from '../../src/fabric/circuits/strategies.js';
import {
  ContentType as EdgeType,
  CreateTerminatorResult,
  CreateTerminatorV2RequestSchema,
  CreateTerminatorV2ResponseSchema,
  TerminatorPrecedence,
  UpdateTerminatorRequestSchema,
} from '../../src/fabric/messages/gen/edge_ctrl_pb.js';
import {
  ContentType as CtrlType,
  RemoveTerminatorsRequestSchema,
  ValidateTerminatorsV2RequestSchema,
  ValidateTerminatorsV2ResponseSchema,
} from '../../src/fabric/messages/gen/ctrl_pb.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeBool, decodeString, decodeU32 } from '../../src/fabric/channel/header-codecs.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';
import { createEntity, readEntity } from '../support/factories.js';
import { createSession, grantService, openEdgeRouter } from '../support/sessions.js';
import { sdkClient, type SdkClient } from '../support/edge-clients.js';
import { FakeChannel } from '../support/fake-channel.js';
import { serveRouterMessages } from '../support/router-messages.js';

describe('terminator messages of a router', () => {
  let t: TestApp;
  let admin: string;
  let routerId: string;
  let otherRouterId: string;
  let host: SdkClient;
  let serviceId: string;
  let bind: string;
  const channel = new FakeChannel();
  const other = new FakeChannel();
  const strategies = new Strategies();

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    routerId = await openEdgeRouter(t, admin);
    otherRouterId = await openEdgeRouter(t, admin);
    host = await sdkClient(t, admin);
    ({ serviceId } = await grantService(t, admin, host.identityId, ['Bind']));
    bind = (await createSession(t, host.apiSessionToken, serviceId, 'Bind')).token;
    const terminators = new Terminators({
      store: t.deps.store,
      clock: t.clock,
      logger: pino({ level: 'silent' }),
      strategies,
    });
    serveRouterMessages(channel, routerId, { terminators });
    serveRouterMessages(other, otherRouterId, { terminators });
  });
  after(() => t.close());

  const bindMessage = (address: string, via = channel) =>
    via.deliver({
      contentType: EdgeType.CreateTerminatorV2RequestType,
      headers: new Map(),
      body: toBinary(
        CreateTerminatorV2RequestSchema,
        create(CreateTerminatorV2RequestSchema, { address, sessionToken: bind, fingerprints: [host.fingerprint] }),
      ),
    });
  const removeMessage = (ids: string[], via = channel) =>
    via.deliver({
      contentType: CtrlType.RemoveTerminatorsRequestType,
      headers: new Map(),
      body: toBinary(RemoveTerminatorsRequestSchema, create(RemoveTerminatorsRequestSchema, { terminatorIds: ids })),
    });
  const terminatorIds = async () =>
    (
      (
        await t.call({
          method: 'GET',
          url: `/edge/management/v1/terminators?filter=${encodeURIComponent(`service="${serviceId}"`)}`,
          token: admin,
        })
      ).body as { data: { id: string }[] }
    ).data
      .map((row) => row.id)
      .sort();

  it('answers CreateTerminatorV2 with a 20217 reply naming the terminator and its result', async () => {
    const reply = await bindMessage('hosted-1');
    assert.equal(reply?.contentType, EdgeType.CreateTerminatorV2ResponseType);
    const response = fromBinary(CreateTerminatorV2ResponseSchema, reply.body);
    assert.deepEqual(
      [response.terminatorId, response.result, response.msg],
      ['hosted-1', CreateTerminatorResult.Success, ''],
    );
    const refused = fromBinary(CreateTerminatorV2ResponseSchema, (await bindMessage(''))!.body);
    assert.deepEqual(
      [refused.result, refused.msg],
      [CreateTerminatorResult.FailedOther, 'provided terminator id is blank'],
    );
  });

  it('removes the router’s own terminators on RemoveTerminators and answers with a success Result', async () => {
    await bindMessage('hosted-2');
    await bindMessage('hosted-3', other);
    const reply = await removeMessage(['hosted-2', 'hosted-3', 'never-made']);
    assert.equal(reply?.contentType, 2);
    assert.equal(decodeBool(reply.headers.get(2)!), true);
    assert.equal(decodeString(reply.body), '');
    // Another router's terminator stays: a router removes only its own.
    assert.deepEqual(await terminatorIds(), ['hosted-1', 'hosted-3']);
    await removeMessage(['hosted-3'], other);
    assert.deepEqual(await terminatorIds(), ['hosted-1']);
  });

  it('closes the channel of a router deleted while connected', async () => {
    const gone = await createEntity(t, admin, 'edge-routers', { name: 'short-lived' });
    const channelOfGone = new FakeChannel();
    serveRouterMessages(channelOfGone, gone, {
      terminators: new Terminators({
        store: t.deps.store,
        clock: t.clock,
        logger: pino({ level: 'silent' }),
        strategies,
      }),
    });
    assert.equal(
      (await t.call({ method: 'DELETE', url: `/edge/management/v1/edge-routers/${gone}`, token: admin })).status,
      200,
    );
    assert.equal(await bindMessage('hosted-4', channelOfGone), undefined);
    assert.equal(channelOfGone.closedWith, 'router not found');
  });

  it('asks a reconnecting router about its terminators older than 5 s and deletes those it no longer hosts', async () => {
    await bindMessage('kept');
    await bindMessage('lost');
    t.clock.advance(3_000);
    await bindMessage('young');
    t.clock.advance(3_000);
    const reconnected = new FakeChannel();
    const terminators = new Terminators({
      store: t.deps.store,
      clock: t.clock,
      logger: pino({ level: 'silent' }),
      strategies,
    });
    serveRouterMessages(reconnected, routerId, { terminators });
    terminators.attached(routerId, reconnected);
    for (let i = 0; i < 100 && reconnected.sent.length === 0; i++) await sleep(5);
    const request = fromBinary(ValidateTerminatorsV2RequestSchema, reconnected.sent[0]!.body);
    assert.equal(reconnected.sent[0]!.contentType, CtrlType.ValidateTerminatorsV2RequestType);
    assert.equal(request.fixInvalid, true);
    assert.deepEqual(request.terminators.map((row) => row.id).sort(), ['hosted-1', 'kept', 'lost']);
    assert.deepEqual(
      request.terminators.map((row) => row.binding),
      ['edge', 'edge', 'edge'],
    );
    const states = { kept: { valid: true }, lost: { valid: false, reason: 1 }, 'hosted-1': { valid: true } };
    await reconnected.deliver({
      contentType: CtrlType.ValidateTerminatorsV2ResponseType,
      headers: new Map(),
      body: toBinary(ValidateTerminatorsV2ResponseSchema, create(ValidateTerminatorsV2ResponseSchema, { states })),
    });
    assert.deepEqual(await terminatorIds(), ['hosted-1', 'kept', 'young']);
  });

  it('updates a terminator’s cost and precedence for its host, and refuses another router, a bad cost and an unknown id', async () => {
    await bindMessage('to-update');
    const update = (
      fields: {
        terminatorId: string;
        cost?: number;
        updateCost?: boolean;
        precedence?: TerminatorPrecedence;
        updatePrecedence?: boolean;
      },
      via = channel,
    ) =>
      via.deliver({
        contentType: EdgeType.UpdateTerminatorRequestType,
        headers: new Map(),
        body: toBinary(
          UpdateTerminatorRequestSchema,
          create(UpdateTerminatorRequestSchema, { sessionToken: bind, fingerprints: [host.fingerprint], ...fields }),
        ),
      });
    const ok = await update({
      terminatorId: 'to-update',
      cost: 9,
      updateCost: true,
      precedence: TerminatorPrecedence.Required,
      updatePrecedence: true,
    });
    assert.equal(ok?.contentType, EdgeType.UpdateTerminatorResponseType);
    const shown = await readEntity(t, admin, 'terminators', 'to-update');
    assert.deepEqual([shown.cost, shown.precedence], [9, 'required']);
    const refusal = (reply: Awaited<ReturnType<typeof update>>) => [
      reply?.contentType,
      decodeU32(reply!.headers.get(1014)!),
      decodeString(reply!.body),
    ];
    assert.deepEqual(refusal(await update({ terminatorId: 'to-update', cost: 70000, updateCost: true })), [
      EdgeType.ErrorType,
      10,
      'invalid cost 70000. cost must be between 0 and 65535 inclusive',
    ]);
    assert.deepEqual(refusal(await update({ terminatorId: 'nope' })), [
      EdgeType.ErrorType,
      8,
      'invalid terminator: not found',
    ]);
    assert.deepEqual(refusal(await update({ terminatorId: 'to-update' }, other)), [
      EdgeType.ErrorType,
      8,
      `update.terminator request for terminator to-update on router ${routerId} came from router ${otherRouterId}`,
    ]);
  });
});
