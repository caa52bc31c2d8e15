// Connections that trickle, idle or pile up are closed, with short configured timeouts standing in for the
// defaults (docs/operating.md: settings). Real TLS sockets: inject() has no connection to time out.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import tls from 'node:tls';
import type { Settings } from '../../../src/settings/settings.schema.js';
import { buildTlsTestApp, type TlsTestApp } from '../../support/tls-client.js';

/** A TLS connection to the test controller that records what it receives and when it is closed. */
interface Probe {
  socket: tls.TLSSocket;
  received: () => string;
  closed: Promise<void>;
}

function connect(port: number): Promise<Probe> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false }, () =>
      resolve({ socket, received: () => text, closed }),
    );
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.once('error', reject);
  });
}

/** Sends `text` a few bytes at a time until the server closes the connection. */
function trickle(probe: Probe, text: string): void {
  let at = 0;
  const timer = setInterval(() => {
    if (probe.socket.destroyed || at >= text.length) return clearInterval(timer);
    probe.socket.write(text.slice(at, (at += 2)));
  }, 20);
  void probe.closed.then(() => clearInterval(timer));
}

/** Whether the server closes a connection that completes no TLS handshake (or refuses it outright). */
function rejectedAtConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false }, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
    socket.once('close', () => resolve(true));
  });
}

const SHORT: Partial<Settings> = {
  headersTimeoutMs: 300,
  requestTimeoutMs: 600,
  keepAliveTimeoutMs: 300,
  idleTimeoutMs: 5_000,
};
const OPTIONS = { timeout: 15_000 };

describe('connection timeouts', () => {
  let t: TlsTestApp;
  before(async () => {
    t = await buildTlsTestApp({ settings: SHORT });
  });
  after(() => t.close());

  it('closes an idle TLS connection that never sends a request, without an answer', OPTIONS, async () => {
    const probe = await connect(t.port);
    await probe.closed;
    assert.equal(probe.received(), '');
  });

  it('closes a connection stuck before the TLS handshake', OPTIONS, async () => {
    const socket = net.connect({ host: '127.0.0.1', port: t.port });
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  });

  it('closes a client trickling its headers, without an answer', OPTIONS, async () => {
    const probe = await connect(t.port);
    trickle(probe, `GET /edge/client/v1/version HTTP/1.1\r\nHost: localhost\r\n${'X-Slow: yes\r\n'.repeat(200)}\r\n`);
    await probe.closed;
    assert.equal(probe.received(), '');
  });

  it('answers a client trickling its body with 503 TIMEOUT in the error envelope, and closes it', OPTIONS, async () => {
    const probe = await connect(t.port);
    const body = JSON.stringify({ username: 'someone', password: 'x'.repeat(2000) });
    probe.socket.write(
      `POST /edge/client/v1/authenticate?method=password HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    trickle(probe, body);
    await probe.closed;
    const [head = '', payload = ''] = probe.received().split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 503 /);
    assert.match(head, /\r\nContent-Type: application\/json\r\n/);
    assert.match(head, /\r\nConnection: close/);
    const envelope = JSON.parse(payload) as { error: { code: string; requestId: string }; meta: unknown };
    assert.equal(envelope.error.code, 'TIMEOUT');
    assert.equal(typeof envelope.error.requestId, 'string');
    assert.deepEqual(envelope.meta, { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' });
  });

  it('closes a kept-alive connection that stays idle after its answer', OPTIONS, async () => {
    const probe = await connect(t.port);
    probe.socket.write('GET /edge/client/v1/version HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await probe.closed;
    assert.match(probe.received(), /^HTTP\/1\.1 200 /);
  });

  it('applies the idle timeout to every connection', () => {
    assert.equal(t.app.server.timeout, 5_000);
  });
});

/** Resolves once the server itself counts `count` open connections (a client's close reaches it a moment later). */
async function serverConnections(t: TlsTestApp, count: number): Promise<void> {
  const current = () =>
    new Promise<number>((resolve, reject) =>
      t.app.server.getConnections((error, open) => (error ? reject(error) : resolve(open))),
    );
  while ((await current()) !== count) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('connection caps', () => {
  it('refuses connections from one client over its pending and waiting caps', OPTIONS, async () => {
    const t = await buildTlsTestApp({
      settings: { maxPendingConnectionsPerClient: 3, maxWaitingConnectionsPerClient: 0 },
    });
    const open: Probe[] = [];
    try {
      open.push(...(await Promise.all([connect(t.port), connect(t.port), connect(t.port)])));
      assert.equal(await rejectedAtConnect(t.port), true);
      open[0]!.socket.destroy();
      await serverConnections(t, 2);
      const again = await t.https({ path: '/edge/client/v1/version' });
      assert.equal(again.status, 200);
    } finally {
      for (const probe of open) probe.socket.destroy();
      await t.close();
    }
  });

  it('no longer counts a connection once it has completed a request', OPTIONS, async () => {
    const t = await buildTlsTestApp({
      settings: { maxPendingConnectionsPerClient: 2, maxWaitingConnectionsPerClient: 0 },
    });
    const open: Probe[] = [];
    try {
      open.push(...(await Promise.all([connect(t.port), connect(t.port)])));
      for (const probe of open) probe.socket.write('GET /edge/client/v1/version HTTP/1.1\r\nHost: localhost\r\n\r\n');
      for (const probe of open) assert.match((await answered(probe, 1))[0]!.head, /^HTTP\/1\.1 200 /);
      // Two served and kept alive, two more pending: the fifth is over the cap.
      open.push(...(await Promise.all([connect(t.port), connect(t.port)])));
      assert.equal(await rejectedAtConnect(t.port), true);
    } finally {
      for (const probe of open) probe.socket.destroy();
      await t.close();
    }
  });

  it('lets a connection over the pending cap wait, unserved, for a pending one to finish', OPTIONS, async () => {
    const t = await buildTlsTestApp({
      settings: { maxPendingConnectionsPerClient: 1, maxWaitingConnectionsPerClient: 1 },
    });
    const first = await connect(t.port);
    let second: Probe | undefined;
    try {
      const waiting = connect(t.port).then((probe) => (second = probe));
      assert.equal(await rejectedAtConnect(t.port), true, 'over the waiting cap: closed at once');
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(second, undefined, 'no handshake while it waits');
      first.socket.write('GET /edge/client/v1/version HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await answered(first, 1);
      const admitted = await waiting;
      admitted.socket.write('GET /edge/client/v1/version HTTP/1.1\r\nHost: localhost\r\n\r\n');
      assert.match((await answered(admitted, 1))[0]!.head, /^HTTP\/1\.1 200 /);
    } finally {
      first.socket.destroy();
      second?.socket.destroy();
      await t.close();
    }
  });

  it('closes a waiting connection at the headers timeout', OPTIONS, async () => {
    const t = await buildTlsTestApp({
      settings: { ...SHORT, maxPendingConnectionsPerClient: 1, maxWaitingConnectionsPerClient: 1 },
    });
    // Pending until the request timeout (600 ms): its body never comes.
    const first = await connect(t.port);
    try {
      first.socket.write(
        'POST /edge/client/v1/authenticate?method=password HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n',
      );
      const started = Date.now();
      assert.equal(await rejectedAtConnect(t.port), true);
      const waited = Date.now() - started;
      assert.ok(waited >= 250, `closed by its own deadline, not refused (${waited} ms)`);
    } finally {
      first.socket.destroy();
      await t.close();
    }
  });

  it('closes waiting connections when the server closes, rather than waiting for their deadline', OPTIONS, async () => {
    const t = await buildTlsTestApp({
      settings: { maxPendingConnectionsPerClient: 1, maxWaitingConnectionsPerClient: 1 },
    });
    const first = await connect(t.port);
    const waiting = net.connect({ host: '127.0.0.1', port: t.port });
    try {
      const closed = new Promise<void>((resolve) => waiting.once('close', () => resolve()));
      waiting.on('error', () => undefined);
      await serverConnections(t, 2);
      const started = Date.now();
      const closing = t.close();
      await closed;
      assert.ok(Date.now() - started < 5_000, 'closed before the 10 s headers timeout');
      first.socket.destroy();
      await closing;
    } finally {
      first.socket.destroy();
      waiting.destroy();
    }
  });

  it(
    'answers 500 new TLS connections from one address at once, all kept open (clients behind one NAT)',
    // 500 handshakes on each side, in one process: a loaded machine takes its time.
    { timeout: 90_000 },
    async () => {
      const t = await buildTlsTestApp();
      const opened = await Promise.allSettled(
        Array.from({ length: 500 }, async () => {
          const probe = await connect(t.port);
          probe.socket.write('GET /edge/client/v1/version HTTP/1.1\r\nHost: localhost\r\n\r\n');
          return { probe, answers: await answered(probe, 1) };
        }),
      );
      try {
        const served = opened.filter(
          (result) => result.status === 'fulfilled' && /^HTTP\/1\.1 200 /.test(result.value.answers[0]?.head ?? ''),
        );
        assert.equal(served.length, 500);
      } finally {
        for (const result of opened) if (result.status === 'fulfilled') result.value.probe.socket.destroy();
        await t.close();
      }
    },
  );

  it('refuses connections over the server-wide cap', OPTIONS, async () => {
    const t = await buildTlsTestApp({ settings: { maxConnections: 2 } });
    const open: Probe[] = [];
    try {
      open.push(...(await Promise.all([connect(t.port), connect(t.port)])));
      assert.equal(await rejectedAtConnect(t.port), true);
    } finally {
      for (const probe of open) probe.socket.destroy();
      await t.close();
    }
  });
});

/** The answers complete so far on a connection, split by their Content-Length. */
function answers(text: string): { head: string; body: string }[] {
  const found: { head: string; body: string }[] = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return found;
    const head = rest.slice(0, end);
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
    if (rest.length < end + 4 + length) return found;
    found.push({ head, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
}

async function answered(probe: Probe, count: number): Promise<{ head: string; body: string }[]> {
  while (answers(probe.received()).length < count && !probe.socket.destroyed)
    await new Promise((resolve) => setTimeout(resolve, 5));
  return answers(probe.received());
}

describe('CORS preflights on a kept-alive connection', () => {
  let t: TlsTestApp;
  before(async () => {
    t = await buildTlsTestApp();
  });
  after(() => t.close());

  // What a browser sends before the console's requests: OPTIONS with no Content-Length and no Transfer-Encoding,
  // which has no body (RFC 9112 §6.3), so nothing is left unread and the connection serves what follows.
  const preflight =
    'OPTIONS /edge/management/v1/identities HTTP/1.1\r\nHost: localhost\r\nOrigin: https://console.example\r\n' +
    'Access-Control-Request-Method: GET\r\nAccess-Control-Request-Headers: zt-session\r\n';

  it(
    'keeps the connection after a bodyless preflight: the same socket serves the GET that follows',
    OPTIONS,
    async () => {
      const probe = await connect(t.port);
      try {
        probe.socket.write(`${preflight}\r\n`);
        const [first] = await answered(probe, 1);
        assert.match(first!.head, /^HTTP\/1\.1 200 /);
        assert.match(first!.head, /\r\naccess-control-allow-origin: https:\/\/console\.example/i);
        assert.doesNotMatch(first!.head, /\r\nconnection: close/i);
        probe.socket.write(
          'GET /edge/client/v1/version HTTP/1.1\r\nHost: localhost\r\nOrigin: https://console.example\r\n\r\n',
        );
        const [, second] = await answered(probe, 2);
        assert.match(second!.head, /^HTTP\/1\.1 200 /);
        assert.equal(
          (JSON.parse(second!.body) as { data: { apiVersions: unknown } }).data.apiVersions !== undefined,
          true,
        );
        assert.equal(probe.socket.destroyed, false);
      } finally {
        probe.socket.destroy();
      }
    },
  );

  it('still closes after a preflight that carries a body it leaves unread', OPTIONS, async () => {
    const probe = await connect(t.port);
    probe.socket.write(`${preflight}Content-Length: 5\r\n\r\nhello`);
    await probe.closed;
    const [first] = answers(probe.received());
    assert.match(first!.head, /^HTTP\/1\.1 200 /);
    assert.match(first!.head, /\r\nconnection: close/i);
  });
});

describe('requests that wait for a turn of the event loop (src/http/loop-turns.ts)', () => {
  it('answers every request of many busy connections, each connection in order', OPTIONS, async () => {
    const t = await buildTlsTestApp();
    const probes = await Promise.all(Array.from({ length: 40 }, () => connect(t.port)));
    try {
      // Ten pipelined requests on each of 40 connections, all at once: far more work than one turn's budget.
      const request = (i: number) => `GET /edge/client/v1/version?n=${i} HTTP/1.1\r\nHost: localhost\r\n\r\n`;
      for (const probe of probes) probe.socket.write(Array.from({ length: 10 }, (_, i) => request(i)).join(''));
      const answeredAll = await Promise.all(probes.map((probe) => answered(probe, 10)));
      for (const answers of answeredAll) {
        assert.equal(answers.length, 10);
        for (const answer of answers) assert.match(answer.head, /^HTTP\/1\.1 200 /);
      }
    } finally {
      for (const probe of probes) probe.socket.destroy();
      await t.close();
    }
  });
});
