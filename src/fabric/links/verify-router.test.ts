import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { create, toBinary } from '@bufbuild/protobuf';
import type { Message } from '../channel/message.js';
import { ContentType as ChannelType, Header } from '../channel/message.js';
import { ContentType, VerifyRouterSchema } from '../messages/gen/ctrl_pb.js';
import { serveVerifyRouter } from './verify-router.js';

const fingerprints: Record<string, string | null> = { enrolled: 'aa11', pending: null };

describe('VerifyRouter (a link acceptor checking the dialling router)', () => {
  it('answers success for the router’s own fingerprint, failure with the reason otherwise', async () => {
    let handler: ((message: Message) => void | Promise<void>) | undefined;
    const replies: Array<{ to: Message; message: Omit<Message, 'sequence'> }> = [];
    const warnings: string[] = [];
    serveVerifyRouter(
      {
        handle: (type, h) => type === Number(ContentType.VerifyRouterType) && (handler = h),
        reply: (to, message) => replies.push({ to, message }),
      },
      (id) => Promise.resolve(fingerprints[id]),
      (_fields, message) => warnings.push(message),
    );
    const ask = async (routerId: string, presented: string[]) => {
      const message = {
        contentType: ContentType.VerifyRouterType,
        sequence: 7,
        headers: new Map(),
        body: toBinary(VerifyRouterSchema, create(VerifyRouterSchema, { routerId, fingerprints: presented })),
      };
      await handler!(message);
      const reply = replies.at(-1)!;
      assert.equal(reply.to, message);
      assert.equal(reply.message.contentType, ChannelType.result);
      return [reply.message.headers.get(Header.resultSuccess)![0], Buffer.from(reply.message.body).toString('utf8')];
    };
    assert.deepEqual(await ask('enrolled', ['ff00', 'aa11']), [1, 'router verified']);
    assert.deepEqual(await ask('enrolled', ['ff00']), [0, 'could not verify fingerprint for router enrolled']);
    assert.deepEqual(await ask('pending', ['aa11']), [0, 'invalid router pending, not yet enrolled']);
    assert.deepEqual(await ask('nobody', ['aa11']), [0, 'router with id nobody not found']);
    assert.equal(warnings.length, 3);
  });
});
