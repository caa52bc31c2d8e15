// How a control message waits in a router_inbox row (router-inbox.ts): JSON text of its content type, headers and
// body (base64), written and read only by this controller's own instances.
import type { Message } from '../channel/message.js';
import { isJsonObject } from '../../lib/object-path.js';

export type Outgoing = Omit<Message, 'sequence'>;

interface StoredMessage {
  c: number;
  h: Array<[number, string]>;
  b: string;
}

export function encodeInboxMessage(message: Outgoing): string {
  const stored: StoredMessage = {
    c: message.contentType,
    h: [...message.headers].map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
    b: Buffer.from(message.body).toString('base64'),
  };
  return JSON.stringify(stored);
}

/** Rows are written only by our own instances; a malformed one still fails the one message, not the holder. */
export function decodeInboxMessage(text: string): Outgoing {
  const stored: unknown = JSON.parse(text);
  if (!isStoredMessage(stored)) throw new Error('malformed inbox message');
  return {
    contentType: stored.c,
    headers: new Map(stored.h.map(([key, value]) => [key, new Uint8Array(Buffer.from(value, 'base64'))])),
    body: new Uint8Array(Buffer.from(stored.b, 'base64')),
  };
}

function isStoredMessage(value: unknown): value is StoredMessage {
  if (!isJsonObject(value)) return false;
  const { c, h, b } = value;
  return (
    typeof c === 'number' &&
    typeof b === 'string' &&
    Array.isArray(h) &&
    h.every((entry) => Array.isArray(entry) && typeof entry[0] === 'number' && typeof entry[1] === 'string')
  );
}
