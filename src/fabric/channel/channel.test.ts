import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, connect, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { Channel, type ChannelLogger, type HeartbeatOptions } from './channel.js';
import { FrameReader } from './frame-reader.js';
import { ContentType, Header, encodeMessage, type Message } from './message.js';
import { decodeBool, decodeI32, decodeU64, encodeU64 } from './header-codecs.js';
import { receiveHello, sendHello, writeHelloResult, HELLO_LIMITS } from './hello.js';

const LIMITS = { maxHeaderBytes: 1024, maxBodyBytes: 64 * 1024 };
const QUIET: HeartbeatOptions = { sendIntervalMs: 60_000, checkIntervalMs: 60_000, closeUnresponsiveMs: 60_000 };

function recordingLogger() {
  const lines: Array<{ level: string; fields: object; message: string }> = [];
  const at = (level: string) => (fields: object, message: string) => lines.push({ level, fields, message });
  const logger: ChannelLogger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

/** A loopback TCP pair: [server side, client side]. */
async function socketPair(): Promise<[Socket, Socket]> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as { port: number };
  const accepted = once(server, 'connection') as Promise<[Socket]>;
  const client = connect(address.port, '127.0.0.1');
  const [serverSide] = await accepted;
  await once(client, 'connect');
  server.close();
  return [serverSide, client];
}

function open(socket: Socket, heartbeat = QUIET, logger = recordingLogger().logger) {
  const channel = new Channel(socket, new FrameReader(LIMITS), {
    label: 'test',
    logger,
    heartbeat,
    maxWriteBufferBytes: 1 << 20,
  });
  return channel;
}

const message = (contentType: number, body = '', headers = new Map<number, Uint8Array>()) => ({
  contentType,
  headers,
  body: Buffer.from(body),
});
const channels: Channel[] = [];
after(() => channels.forEach((channel) => channel.close('test over')));

describe('Channel', () => {
  it('matches replies to requests by header 1 and reflects headers 128-255', async () => {
    const [a, b] = await socketPair();
    const server = open(a);
    const client = open(b);
    channels.push(server, client);
    server.handle(1000, (request) =>
      server.reply(request, message(1001, `echo ${Buffer.from(request.body).toString()}`)),
    );
    server.start();
    client.start();
    const reply = await client.request(message(1000, 'hi', new Map([[130, Buffer.from('trace')]])), 5000);
    assert.equal(reply.contentType, 1001);
    assert.equal(Buffer.from(reply.body).toString(), 'echo hi');
    assert.equal(Buffer.from(reply.headers.get(130)!).toString(), 'trace');
  });

  it('rejects a request that gets no reply in time, and every pending request when it closes', async () => {
    const [a, b] = await socketPair();
    const server = open(a);
    const client = open(b);
    channels.push(server, client);
    server.start();
    client.start();
    await assert.rejects(client.request(message(1000), 50), /no reply to content type 1000 within 50 ms/);
    const pending = client.request(message(1000), 60_000);
    server.close('bye');
    await assert.rejects(pending, /channel closed/);
    await client.closed;
  });

  it('tells a sender to wait while the peer reads nothing, and when it has read', async () => {
    const [a, b] = await socketPair();
    const sender = open(a);
    channels.push(sender);
    // Fill the kernel's buffers until the socket's own passes its high-water mark (b does not read yet).
    for (let sent = 0; !a.writableNeedDrain; sent++) {
      assert.ok(sent < 1000, 'the peer never made the sender wait');
      sender.send(message(1000, 'x'.repeat(32 * 1024)));
    }
    let isDrained = false;
    const drained = sender.drained().then(() => (isDrained = true));
    for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(isDrained, false);
    b.resume();
    await drained;
    assert.equal(a.writableNeedDrain, false);
    b.destroy();
  });

  it('tells a sender waiting on a peer that left at once', async () => {
    const [a, b] = await socketPair();
    const sender = open(a);
    channels.push(sender);
    for (let sent = 0; !a.writableNeedDrain && sent < 1000; sent++) sender.send(message(1000, 'x'.repeat(32 * 1024)));
    const drained = sender.drained();
    sender.close('test over');
    await drained;
    b.destroy();
  });

  it('answers a ping with a success result', async () => {
    const [a, b] = await socketPair();
    const server = open(a);
    const client = open(b);
    channels.push(server, client);
    server.start();
    client.start();
    const result = await client.request(message(ContentType.ping), 5000);
    assert.equal(result.contentType, ContentType.result);
    assert.equal(decodeBool(result.headers.get(Header.resultSuccess)!), true);
  });

  it("stamps header 5 on its traffic and echoes the peer's header 5 in header 6", async () => {
    const [a, b] = await socketPair();
    const server = open(a, { sendIntervalMs: 20, checkIntervalMs: 10, closeUnresponsiveMs: 60_000 });
    channels.push(server);
    server.start();
    const reader = new FrameReader(LIMITS);
    const seen: Message[] = [];
    b.on('data', (chunk: Buffer) => seen.push(...reader.push(chunk)));
    b.write(
      encodeMessage({
        contentType: ContentType.heartbeat,
        sequence: 1,
        headers: new Map([[Header.heartbeat, encodeU64(123456789n)]]),
        body: Buffer.alloc(0),
      }),
    );
    while (
      !seen.some((m) => m.headers.has(Header.heartbeatResponse)) ||
      !seen.some((m) => m.headers.has(Header.heartbeat))
    )
      await new Promise((r) => setTimeout(r, 10));
    assert.equal(
      decodeU64(seen.find((m) => m.headers.has(Header.heartbeatResponse))!.headers.get(Header.heartbeatResponse)!),
      123456789n,
    );
    b.destroy();
  });

  it('closes a peer that leaves its heartbeats unanswered', async () => {
    const [a, b] = await socketPair();
    const { logger, lines } = recordingLogger();
    const server = open(a, { sendIntervalMs: 10, checkIntervalMs: 10, closeUnresponsiveMs: 40 }, logger);
    channels.push(server);
    server.start();
    b.resume();
    await server.closed;
    assert.match(server.closeReason!, /no heartbeat response within 40 ms/);
    assert.ok(lines.some((line) => line.level === 'warn'));
    b.destroy();
  });

  it('stays open while the peer answers its heartbeats', async () => {
    const [a, b] = await socketPair();
    // Ten times the heartbeat interval, and far more than the unresponsive limit, with every heartbeat answered.
    const server = open(a, { sendIntervalMs: 20, checkIntervalMs: 10, closeUnresponsiveMs: 400 });
    const client = open(b);
    channels.push(server, client);
    server.start();
    client.start();
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal(server.closeReason, undefined);
  });

  for (const [name, frame, reason] of [
    ['a frame with another magic', Buffer.from('GET / HTTP/1.1\r\n\r\n'), /not a channel v2 frame/],
    [
      'an oversized body',
      encodeMessage({ contentType: 9, sequence: 1, headers: new Map(), body: Buffer.alloc(LIMITS.maxBodyBytes + 1) }),
      /body of 65537 bytes exceeds the limit of 65536/,
    ],
    [
      'oversized headers',
      encodeMessage({
        contentType: 9,
        sequence: 1,
        headers: new Map([[7, Buffer.alloc(2000)]]),
        body: Buffer.alloc(0),
      }),
      /headers of 2008 bytes exceed/,
    ],
    [
      'a header running past its section',
      (() => {
        const frame = encodeMessage({
          contentType: 9,
          sequence: 1,
          headers: new Map([[7, Buffer.alloc(4)]]),
          body: Buffer.alloc(0),
        });
        frame.writeInt32LE(99, 24);
        return frame;
      })(),
      /header 7 claims 99 bytes/,
    ],
    [
      'a malformed heartbeat header',
      encodeMessage({
        contentType: 5,
        sequence: 1,
        headers: new Map([[Header.heartbeat, Buffer.alloc(3)]]),
        body: Buffer.alloc(0),
      }),
      /a 64-bit header has 3 bytes/,
    ],
  ] as const) {
    it(`closes that connection alone on ${name}, with a warning naming it`, async () => {
      const [a, b] = await socketPair();
      const [c, d] = await socketPair();
      const { logger, lines } = recordingLogger();
      const victim = open(a, QUIET, logger);
      const bystander = open(c, QUIET, logger);
      const peer = open(d);
      channels.push(victim, bystander, peer);
      victim.start();
      bystander.start();
      peer.start();
      b.on('error', () => undefined);
      b.write(frame);
      await victim.closed;
      assert.match(victim.closeReason!, reason);
      assert.ok(lines.some((line) => line.level === 'warn' && line.message === 'closing control channel'));
      assert.equal((await peer.request(message(ContentType.ping), 5000)).contentType, ContentType.result);
      b.destroy();
    });
  }
});

describe('hello exchange', () => {
  it('reads a hello split into single bytes and answers with a result replying to -1', async () => {
    const [a, b] = await socketPair();
    const received = receiveHello(a, 5000);
    const frame = encodeMessage({
      contentType: ContentType.hello,
      sequence: -1,
      headers: new Map([[Header.helloVersion, Buffer.from('v1.1.8|x|d|linux|amd64')]]),
      body: Buffer.from('router-1'),
    });
    const answered = sendHelloBytes(b, frame);
    const { hello } = await received;
    assert.equal(Buffer.from(hello.body).toString(), 'router-1');
    writeHelloResult(a, new Map([[Header.id, Buffer.from('ctrl')]]));
    const result = await answered;
    assert.equal(decodeI32(result.headers.get(Header.replyFor)!), -1);
    assert.equal(Buffer.from(result.headers.get(Header.id)!).toString(), 'ctrl');
    a.destroy();
    b.destroy();
  });

  it('drops a peer that says nothing within the time limit', async () => {
    const [a, b] = await socketPair();
    await assert.rejects(receiveHello(a, 50), /nothing received within 50 ms/);
    a.destroy();
    b.destroy();
  });

  it('refuses a hello over 4192 bytes of body before reading it', async () => {
    const [a, b] = await socketPair();
    const received = receiveHello(a, 5000);
    const prelude = encodeMessage({
      contentType: 0,
      sequence: -1,
      headers: new Map(),
      body: Buffer.alloc(HELLO_LIMITS.maxBodyBytes + 1),
    }).subarray(0, 20);
    b.write(prelude);
    await assert.rejects(received, /body of 4193 bytes exceeds the limit of 4192/);
    a.destroy();
    b.destroy();
  });

  it('tells a peer speaking another channel version which versions it speaks', async () => {
    const [a, b] = await socketPair();
    const received = receiveHello(a, 5000);
    b.write(Buffer.from([0x03, 0x06, 0x09, 0x0d, 0, 0, 0, 0]));
    await assert.rejects(received, /not a channel v2 frame/);
    const [answer] = (await once(b, 'data')) as [Buffer];
    assert.equal(answer.toString('hex'), '0306090a020000000100000002000000');
    a.destroy();
    b.destroy();
  });

  it('sendHello rejects a failed result with its message', async () => {
    const [a, b] = await socketPair();
    const answered = sendHello(b, { headers: new Map(), body: Buffer.from('r') }, 5000, LIMITS);
    await receiveHello(a, 5000);
    a.write(
      encodeMessage({
        contentType: ContentType.result,
        sequence: -1,
        headers: new Map([[Header.resultSuccess, Buffer.from([0])]]),
        body: Buffer.from('no such router'),
      }),
    );
    await assert.rejects(answered, /hello refused: no such router/);
    a.destroy();
    b.destroy();
  });
});

/** Writes a frame one byte at a time, then reads the hello result. */
async function sendHelloBytes(socket: Socket, frame: Buffer): Promise<Message> {
  const reader = new FrameReader(LIMITS);
  for (const byte of frame) {
    socket.write(Buffer.of(byte));
    await new Promise((r) => setImmediate(r));
  }
  for (;;) {
    const [chunk] = (await once(socket, 'data')) as [Buffer];
    const [result] = reader.push(chunk);
    if (result) return result;
  }
}
