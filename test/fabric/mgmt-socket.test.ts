// The management channel's websocket (fabric/mgmt/mgmt-socket.ts) on a loopback HTTP server, with a test client that
// dials as the v1.1.8 CLI does: admission before the upgrade, channel v2 frames over the websocket, the table's
// answers, and `stream events` against a fake event source (the real one is the process's event dispatcher).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import pino from 'pino';
import WebSocket from 'ws';
import { MgmtSocket } from '../../src/fabric/mgmt/mgmt-socket.js';
import { MgmtMessages } from '../../src/fabric/mgmt/mgmt-messages.js';
import { mgmtMessages } from '../../src/fabric/mgmt/mgmt-table.js';
import {
  EventStreams,
  type EventSource,
  type EventSubscription,
  type StreamedEvent,
} from '../../src/fabric/mgmt/stream-events.js';
import { ContentType as MgmtType, Header as MgmtHeader } from '../../src/fabric/messages/gen/mgmt_pb.js';
import { ContentType, Header } from '../../src/fabric/channel/message.js';
import { decodeBool, decodeString, encodeString } from '../../src/fabric/channel/header-codecs.js';
import { openMgmtClient, type MgmtClient } from '../support/mgmt-client.js';

const TOKEN = '11111111-2222-3333-4444-555555555555';

/** Subscribers by their subscriptions, as the dispatcher keeps them; a type named `bad` is refused. */
class FakeEvents implements EventSource {
  readonly subscribers = new Set<{ subscriptions: readonly EventSubscription[]; accept(event: StreamedEvent): void }>();

  subscribe(subscriptions: readonly EventSubscription[], sink: { accept(event: StreamedEvent): void }) {
    if (subscriptions.some((entry) => entry.type === 'bad')) throw new Error('invalid options for bad');
    const entry = { subscriptions, accept: (event: StreamedEvent) => sink.accept(event) };
    this.subscribers.add(entry);
    return { unsubscribe: () => this.subscribers.delete(entry) };
  }

  emit(event: StreamedEvent): void {
    for (const subscriber of this.subscribers)
      if (subscriber.subscriptions.some((entry) => entry.type === event.namespace)) subscriber.accept(event);
  }
}

const notUsed = () => Promise.reject(new Error('not used in this test'));

describe('management channel websocket', () => {
  let server: Server;
  let url: string;
  let events: FakeEvents;
  let socket: MgmtSocket;

  before(async () => {
    const logger = pino({ level: 'silent' });
    events = new FakeEvents();
    const messages = new MgmtMessages(
      mgmtMessages({
        appId: 'ctrl',
        events: new EventStreams(events, logger),
        inspections: { inspect: () => Promise.resolve({ success: true, errors: [], values: [] }) },
        terminators: {
          store: undefined as never,
          messenger: { request: notUsed },
          selectTerminators: notUsed,
          removeInvalid: notUsed,
        },
        routers: {
          store: undefined as never,
          messenger: { request: notUsed },
          selectRouters: notUsed,
          connectedRouterIds: notUsed,
          links: notUsed,
        },
      }),
      logger,
    );
    socket = new MgmtSocket({
      admit: (request) =>
        Promise.resolve(
          request.headers['zt-session'] === TOKEN
            ? { admitted: true }
            : { admitted: false, status: 401, body: '{"error":{"code":"UNAUTHORIZED"}}\n' },
        ),
      messages,
      logger,
    });
    server = createServer((_request, response) => response.writeHead(404).end());
    server.on('upgrade', (request, raw, head) => socket.upgrade(request, raw, head));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/fabric/v1/ws-api`;
  });
  after(async () => {
    socket.close();
    await new Promise((resolve) => server.close(resolve));
  });

  const streamEvents = (client: MgmtClient, request: unknown) =>
    client.channel.request(
      {
        contentType: MgmtType.StreamEventsRequestType,
        headers: new Map(),
        body: encodeString(typeof request === 'string' ? request : JSON.stringify(request)),
      },
      5000,
    );
  const result = (message: { contentType: number; headers: Map<number, Uint8Array>; body: Uint8Array }) => {
    assert.equal(message.contentType, ContentType.result);
    return { success: decodeBool(message.headers.get(Header.resultSuccess)!), message: decodeString(message.body) };
  };

  it('refuses an upgrade without an admin session with 401 and another path with 404', async () => {
    await assert.rejects(openMgmtClient(url, undefined), /Unexpected server response: 401/);
    await assert.rejects(openMgmtClient(url, '99999999-2222-3333-4444-555555555555'), /401/);
    await assert.rejects(openMgmtClient(url.replace('ws-api', 'other'), TOKEN), /Unexpected server response: 404/);
  });

  it('streams the subscribed events with their type header until the channel closes', async () => {
    const client = await openMgmtClient(url, TOKEN);
    const subscriptions = [{ type: 'fabric.circuits' }, { type: 'fabric.usage', options: { version: 3 } }];
    const answer = await streamEvents(client, { format: 'json', subscriptions });
    assert.deepEqual(result(answer), { success: true, message: 'success' });
    assert.equal(events.subscribers.size, 1);
    assert.deepEqual([...events.subscribers][0]!.subscriptions, subscriptions);
    events.emit({ namespace: 'fabric.circuits', event_type: 'created', circuit_id: 'c1' } as StreamedEvent);
    events.emit({ namespace: 'fabric.links' });
    events.emit({ namespace: 'fabric.usage', version: 3 });
    const streamed = await client.waitFor(MgmtType.StreamEventsEventType, 2);
    assert.deepEqual(
      streamed.map((message) => [
        decodeString(message.headers.get(MgmtHeader.EventTypeHeader)!),
        decodeString(message.body),
      ]),
      [
        ['circuit', '{"namespace":"fabric.circuits","event_type":"created","circuit_id":"c1"}'],
        ['usage.v3', '{"namespace":"fabric.usage","version":3}'],
      ],
    );
    await client.close();
    for (let i = 0; i < 100 && events.subscribers.size > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(events.subscribers.size, 0, 'unsubscribed when the channel closed');
  });

  it("answers a bad request with upstream's failed Result and keeps the channel open", async () => {
    const client = await openMgmtClient(url, TOKEN);
    try {
      assert.deepEqual(result(await streamEvents(client, { format: 'yaml', subscriptions: [] })), {
        success: false,
        message: "invalid format ['yaml']",
      });
      assert.deepEqual(result(await streamEvents(client, { format: 'json', subscriptions: [{ type: 'bad' }] })), {
        success: false,
        message: 'invalid options for bad',
      });
      assert.equal(result(await streamEvents(client, '{not json')).success, false);
      assert.equal(result(await streamEvents(client, { format: 1 })).success, false);
      const unknown = await client.channel.request(
        { contentType: 10999, headers: new Map(), body: new Uint8Array() },
        5000,
      );
      assert.deepEqual(result(unknown), { success: false, message: 'unsupported content type 10999' });
      assert.equal(events.subscribers.size, 0);
    } finally {
      await client.close();
    }
  });

  it('closes a client that sends a text message or bytes that are not a channel v2 frame', async () => {
    // Our channel writes only frames: a raw websocket sends what a hostile client would.
    const sends = [
      (ws: WebSocket) => ws.send('text'),
      (ws: WebSocket) => ws.send(Buffer.from('GET / HTTP/1.1\r\n\r\n')),
    ];
    for (const send of sends) {
      const ws = new WebSocket(url, { headers: { 'zt-session': TOKEN } });
      await once(ws, 'open');
      send(ws);
      await once(ws, 'close');
    }
  });
});
