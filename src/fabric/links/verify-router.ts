// A router accepting a link asks the controller whether the dialling router is who it says (VerifyRouter 1036, upstream
// v1.1.8 handler_ctrl/verify_router.go, Network.VerifyRouter): the router must exist, be enrolled, and one of the
// certificate fingerprints the link presented must be its own. The answer is a channel Result (success or failure
// with the reason); without it the accepting router times out and faults every link.
import { fromBinary } from '@bufbuild/protobuf';
import type { Message } from '../channel/message.js';
import { ContentType as ChannelType, Header } from '../channel/message.js';
import { encodeBool } from '../channel/header-codecs.js';
import { ContentType, VerifyRouterSchema } from '../messages/gen/ctrl_pb.js';

export interface VerifyChannel {
  reply(to: Message, message: Omit<Message, 'sequence'>): void;
  handle(contentType: number, handler: (message: Message) => void | Promise<void>): void;
}

/** The router's enrolled certificate fingerprint; undefined when no such router, null when not enrolled. */
export type FingerprintOf = (routerId: string) => Promise<string | null | undefined>;

export async function verifyRouter(
  fingerprintOf: FingerprintOf,
  routerId: string,
  fingerprints: readonly string[],
): Promise<string | undefined> {
  const fingerprint = await fingerprintOf(routerId);
  if (fingerprint === undefined) return `router with id ${routerId} not found`;
  if (fingerprint === null) return `invalid router ${routerId}, not yet enrolled`;
  return fingerprints.includes(fingerprint) ? undefined : `could not verify fingerprint for router ${routerId}`;
}

const result = (success: boolean, text: string): Omit<Message, 'sequence'> => ({
  contentType: ChannelType.result,
  headers: new Map([[Header.resultSuccess, encodeBool(success)]]),
  body: new Uint8Array(Buffer.from(text, 'utf8')),
});

/** Serves VerifyRouter on a router's channel. */
export function serveVerifyRouter(
  channel: VerifyChannel,
  fingerprintOf: FingerprintOf,
  warn: (fields: object, message: string) => void,
): void {
  channel.handle(ContentType.VerifyRouterType, async (message) => {
    let request;
    try {
      request = fromBinary(VerifyRouterSchema, message.body);
    } catch (error) {
      warn(
        { reason: error instanceof Error ? error.message : String(error) },
        'failed to unmarshal verify router message',
      );
      return;
    }
    const failure = await verifyRouter(fingerprintOf, request.routerId, request.fingerprints);
    if (failure) warn({ routerId: request.routerId, reason: failure }, 'router verification failed');
    channel.reply(message, failure ? result(false, failure) : result(true, 'router verified'));
  });
}
