// The router-message table and its one wrapper: each content type bound once, every request answered (refused,
// undecodable, failed or unknown), reports left unanswered; VerifyRouter's answers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create, toBinary } from '@bufbuild/protobuf';
import pino from 'pino';
import { ContentType as ChannelType, Header, type Message } from '../../src/fabric/channel/message.js';
import { decodeString, decodeU32 } from '../../src/fabric/channel/header-codecs.js';
import { line, RouterMessages } from '../../src/fabric/ctrl/router-messages.js';
import { RouterRequestError } from '../../src/fabric/ctrl/router-request-error.js';
import { resultMessage } from '../../src/fabric/ctrl/router-channel.js';
import { routerMessages } from '../../src/fabric/router-messages.js';
import { ContentType as CtrlType, VerifyRouterSchema } from '../../src/fabric/messages/gen/ctrl_pb.js';
import { ContentType as EdgeType } from '../../src/fabric/messages/gen/edge_ctrl_pb.js';
import { EDGE_ERROR_CODE_HEADER } from '../../src/fabric/edge-requests.js';
import { FakeChannel } from '../support/fake-channel.js';
import { serveRouterMessages } from '../support/router-messages.js';
import { capturingLogger } from '../support/log-capture.js';

type Outgoing = Omit<Message, 'sequence'>;
const silent = pino({ level: 'silent' });
const message = (contentType: number, body: Uint8Array = new Uint8Array()): Outgoing => ({
  contentType,
  headers: new Map(),
  body,
});
const resultOf = (reply: Outgoing | undefined) => {
  assert.equal(reply?.contentType, ChannelType.result);
  return [reply.headers.get(Header.resultSuccess)?.[0], decodeString(reply.body)];
};
const edgeErrorOf = (reply: Outgoing | undefined) => {
  assert.equal(reply?.contentType, EdgeType.ErrorType);
  return [decodeU32(reply.headers.get(EDGE_ERROR_CODE_HEADER)!), decodeString(reply.body)];
};

describe('the router-message table', () => {
  it('binds each content type once: the table has no duplicate, and a second line for one fails at start', () => {
    const lines = routerMessages({
      circuits: {
        create: assert.fail,
        request: assert.fail,
        fault: assert.fail,
        confirm: assert.fail,
        lateRouteResult: assert.fail,
      },
      terminators: {
        create: assert.fail,
        update: assert.fail,
        remove: assert.fail,
        health: assert.fail,
        validated: assert.fail,
      },
      links: { fault: assert.fail, routerLinks: assert.fail, metrics: assert.fail },
      edgeSync: { heartbeat: assert.fail, resync: assert.fail, validateSessions: assert.fail },
      routerMetrics: assert.fail,
      renewal: { extend: assert.fail, verify: assert.fail },
      drain: { quiesce: assert.fail, dequiesce: assert.fail, decommission: assert.fail },
      tunnel: {
        createApiSession: assert.fail,
        listServices: assert.fail,
        createTerminator: assert.fail,
        createTerminatorV2: assert.fail,
        updateTerminator: assert.fail,
        removeTerminator: assert.fail,
        health: assert.fail,
      },
      tunnelCircuits: { create: assert.fail, createV2: assert.fail },
      fingerprintOf: assert.fail,
    });
    const types = new RouterMessages(lines, silent).contentTypes;
    assert.equal(types.length, lines.length);
    assert.throws(
      () => new RouterMessages([...lines, lines[0]!], silent),
      /router message 20218 bound twice \(CreateCircuitV2Request and CreateCircuitV2Request\)/,
    );
    const channel = new FakeChannel();
    new RouterMessages(lines, silent).bind('r1', channel);
    assert.throws(() => channel.handle(CtrlType.FaultType, () => undefined), /bound twice/);
  });

  it('answers every request: a refusal and a failure in the line’s form, an undecodable body, an unknown type', async () => {
    const refuse = line({
      contentType: 30001,
      name: 'Refused',
      decode: (m) => decodeString(m.body),
      handle: ({ request }) => {
        throw new RouterRequestError(`no ${request}`, 6);
      },
      errors: 'edge',
    });
    const fail = line({
      contentType: 30002,
      name: 'Failing',
      decode: () => undefined,
      handle: () => Promise.reject(new Error('database is gone')),
      errors: 'result',
    });
    const report = line({
      contentType: 30003,
      name: 'Report',
      decode: () => {
        throw new Error('bad bytes');
      },
      handle: () => assert.fail('not decoded, not handled'),
      errors: 'none',
    });
    const answer = line({
      contentType: 30004,
      name: 'Answered',
      decode: (m) => decodeString(m.body),
      handle: ({ routerId, request }) => resultMessage(true, `${routerId}:${request}`),
      errors: 'result',
    });
    const logs = capturingLogger();
    const channel = new FakeChannel();
    new RouterMessages([refuse, fail, report, answer], logs.logger).bind('r1', channel);
    const text = (value: string) => new Uint8Array(Buffer.from(value));

    assert.deepEqual(edgeErrorOf(await channel.deliver(message(30001, text('entry')))), [6, 'no entry']);
    assert.deepEqual(resultOf(await channel.deliver(message(30002))), [0, 'database is gone']);
    assert.equal(await channel.deliver(message(30003)), undefined, 'a report is not answered, even when unreadable');
    assert.deepEqual(resultOf(await channel.deliver(message(30004, text('x')))), [1, 'r1:x']);
    assert.deepEqual(resultOf(await channel.deliver(message(40000))), [0, 'unsupported content type 40000']);
    await channel.deliver(message(40000));

    assert.deepEqual(
      logs.lines.map((entry) => [entry.level, entry.msg, entry.contentType, entry.reason]),
      [
        [40, 'router request refused', 30001, 'no entry'],
        [50, 'router message handler failed', 30002, undefined],
        [40, 'router request refused', 30003, 'could not decode Report: bad bytes'],
        [40, 'router message not supported: answered', 40000, undefined],
      ],
      'each failure logged once with its router and content type; an unknown type warned about once',
    );
  });

  it('answers VerifyRouter with success for the router’s own fingerprint, and the reason otherwise', async () => {
    const fingerprints: Record<string, string | null> = { enrolled: 'aa11', pending: null };
    const channel = new FakeChannel();
    serveRouterMessages(channel, 'acceptor', { fingerprintOf: (id) => Promise.resolve(fingerprints[id]) });
    const ask = async (routerId: string, presented: string[]) =>
      resultOf(
        await channel.deliver(
          message(
            CtrlType.VerifyRouterType,
            toBinary(VerifyRouterSchema, create(VerifyRouterSchema, { routerId, fingerprints: presented })),
          ),
        ),
      );
    assert.deepEqual(await ask('enrolled', ['ff00', 'aa11']), [1, 'router verified']);
    assert.deepEqual(await ask('enrolled', ['ff00']), [0, 'could not verify fingerprint for router enrolled']);
    assert.deepEqual(await ask('pending', ['aa11']), [0, 'invalid router pending, not yet enrolled']);
    assert.deepEqual(await ask('nobody', ['aa11']), [0, 'router with id nobody not found']);
  });
});
