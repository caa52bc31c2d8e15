// The one view of a router's control channel the fabric's parts use (channel/channel.ts implements it; tests stand in
// for it with test/support/fake-channel.ts), the logger they share, and channel.NewResult.
import type { ChannelLogger } from '../channel/channel.js';
import type { Message } from '../channel/message.js';
import { ContentType, Header } from '../channel/message.js';
import { encodeBool, encodeString } from '../channel/header-codecs.js';
import { create, toBinary } from '@bufbuild/protobuf';
import { ContentType as EdgeType, ErrorSchema } from '../messages/gen/edge_ctrl_pb.js';

/** A message before the channel numbers it. */
export type Outgoing = Omit<Message, 'sequence'>;

export interface ControlChannel {
  send(message: Outgoing): void;
  request(message: Outgoing, timeoutMs: number): Promise<Message>;
  reply(to: Message, message: Outgoing): void;
  /** Binds a content type; binding one twice throws (router-messages.ts binds every type once). */
  handle(contentType: number, handler: (message: Message) => void | Promise<void>): void;
  /** Receives every message of a content type nothing handles. */
  handleOthers(handler: (message: Message) => void): void;
  close(reason: string): void;
}

/** The part of a pino logger the fabric uses: the channel's own (channel/ imports nothing of the fabric). */
export type FabricLogger = ChannelLogger;

/** channel.NewResult: content type 2, header 2 the outcome, the body its message. */
export function resultMessage(success: boolean, message: string): Outgoing {
  return {
    contentType: ContentType.result,
    headers: new Map([[Header.resultSuccess, encodeBool(success)]]),
    body: encodeString(message),
  };
}

/** An edge_ctrl_pb.Error (20002) as a protobuf body: what upstream answers enrollment verification with ('' is success). */
export function edgeErrorProtobuf(code: string, message: string): Outgoing {
  return {
    contentType: EdgeType.ErrorType,
    headers: new Map(),
    body: toBinary(ErrorSchema, create(ErrorSchema, { code, message })),
  };
}
