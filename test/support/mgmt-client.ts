// A management-channel client as the v1.1.8 CLI dials one (ziti/cmd/api/ws.go): a websocket to /fabric/v1/ws-api
// with the admin's `zt-session` header, channel v2 frames one per binary message, no hello, no heartbeats. It speaks
// through our own channel code over the websocket, as the controller does.
import { once } from 'node:events';
import pino from 'pino';
import WebSocket, { createWebSocketStream } from 'ws';
import { Channel } from '../../src/fabric/channel/channel.js';
import { FrameReader } from '../../src/fabric/channel/frame-reader.js';
import type { Message } from '../../src/fabric/channel/message.js';

export interface MgmtClient {
  channel: Channel;
  /** Every message the controller sent that was not a reply to a request. */
  received: Message[];
  /** Waits until `count` messages of `contentType` have come; answers them. */
  waitFor(contentType: number, count?: number, timeoutMs?: number): Promise<Message[]>;
  close(): Promise<void>;
}

/** Opens the channel; rejects with the HTTP status when the upgrade is refused (`Unexpected server response: 401`). */
export async function openMgmtClient(url: string, token: string | undefined, ca?: string): Promise<MgmtClient> {
  const ws = new WebSocket(url, {
    ...(ca ? { ca } : {}),
    headers: token ? { 'zt-session': token } : {},
  });
  await Promise.race([once(ws, 'open'), once(ws, 'error').then(([error]) => Promise.reject(error as Error))]);
  const received: Message[] = [];
  const channel = new Channel(
    createWebSocketStream(ws),
    new FrameReader({ maxHeaderBytes: 1 << 20, maxBodyBytes: 64 << 20 }),
    {
      label: 'test mgmt client',
      logger: pino({ level: 'silent' }),
      heartbeat: undefined,
      maxWriteBufferBytes: 64 << 20,
    },
  );
  ws.once('close', () => channel.close('websocket closed'));
  channel.handleOthers((message) => received.push(message));
  channel.start();
  return {
    channel,
    received,
    async waitFor(contentType, count = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.filter((message) => message.contentType === contentType);
        if (found.length >= count) return found;
        if (Date.now() > deadline) throw new Error(`${found.length} of ${count} messages of type ${contentType} came`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close() {
      channel.close('test client closed');
      return channel.closed;
    },
  };
}
