import assert from 'node:assert/strict';
import { connect } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { newCsr, newKeyPair } from '../../support/test-keys.js';
import { assertError } from '../../support/conformance.js';
import { createUser, login } from '../../support/factories.js';
import { ADMIN_PASSWORD, buildTestApp, testDatabaseUrl, type TestApp } from '../../support/test-app.js';
import { buildTlsTestApp, type TlsTestApp } from '../../support/tls-client.js';
import { MANAGEMENT as api } from '../../support/api-paths.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus' text exposition format, as a scraper reads it: `name{label="value",…} number` per sample line. */
function parseMetrics(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      assert.ok(match, `not a sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]),
      );
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The value of the one sample named `name` whose labels include `labels` (0 when there is none yet). */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value ?? 0;
}

describe('the access log', () => {
  let t: TestApp;
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  before(async () => {
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => void (raw.push(line), lines.push(JSON.parse(line) as Record<string, unknown>)) },
    );
    t = await buildTestApp({ logger });
  });
  after(() => t.close());
  const requests = () => lines.filter((line) => line.msg === 'request');

  it('writes one line per request: request id, method, operation, status, duration and caller identity', async () => {
    lines.length = 0;
    const token = await t.loginAsAdmin();
    const me = await t.call({ method: 'GET', url: '/edge/client/v1/current-identity', token });
    await t.call({ method: 'GET', url: '/edge/management/v1/no-such-thing' });
    const [loginLine, meLine, missingLine] = requests();
    assert.equal(requests().length, 3);
    assert.equal(typeof loginLine?.reqId, 'string');
    assert.deepEqual(
      {
        method: loginLine?.method,
        operation: loginLine?.operation,
        status: loginLine?.status,
        identityId: loginLine?.identityId,
      },
      { method: 'POST', operation: 'authenticate', status: 200, identityId: undefined },
    );
    assert.equal(typeof loginLine?.ms, 'number');
    assert.equal(meLine?.operation, 'getCurrentIdentity');
    assert.equal(meLine?.identityId, (me.body as { data: { id: string } }).data.id);
    assert.deepEqual(
      [missingLine?.operation, missingLine?.status, missingLine?.path],
      ['none', 404, '/edge/management/v1/no-such-thing'],
    );
    assert.equal(meLine?.reqId === loginLine?.reqId, false);
  });

  it('never holds passwords, tokens, CSRs or keys', async () => {
    raw.length = 0;
    const token = await t.loginAsAdmin();
    const user = await createUser(t, token);
    await login(t, user.username, user.password);
    await t.call({ method: 'GET', url: '/edge/client/v1/current-identity', token });
    const key = await newKeyPair('ec');
    const csr = await newCsr(key, 'CN=logged');
    const enrollToken = 'enrollment-token-that-must-not-be-logged';
    await t.call({
      method: 'POST',
      url: `/edge/client/v1/enroll?method=ott&token=${enrollToken}`,
      headers: { 'content-type': 'application/x-pem-file' },
      payload: csr,
    });
    const text = raw.join('');
    for (const secret of [
      ADMIN_PASSWORD,
      user.password,
      token,
      enrollToken,
      csr.split('\n')[1]!,
      key.keyPem.split('\n')[1]!,
    ]) {
      assert.equal(text.includes(secret), false, `the log holds ${secret.slice(0, 12)}…`);
    }
    assert.ok(
      requests().some((line) => line.operation === 'enroll'),
      'the enroll request is logged',
    );
    await t.call({ method: 'GET', url: `/edge/client/v1/no-such-thing?token=${enrollToken}` });
    assert.ok(
      requests().some((line) => line.path === '/edge/client/v1/no-such-thing'),
      'an unknown path is logged without its query',
    );
    assert.equal(raw.join('').includes(enrollToken), false);
  });

  it('is off with log.access false', async () => {
    const quiet: string[] = [];
    const off = await buildTestApp({
      settings: { accessLog: false },
      logger: pino({ level: 'info' }, { write: (line: string) => void quiet.push(line) }),
    });
    try {
      await off.loginAsAdmin();
      assert.equal(quiet.filter((line) => line.includes('"msg":"request"')).length, 0);
    } finally {
      await off.close();
    }
  });
});

describe('metrics', () => {
  let t: TlsTestApp;
  const scrape = async (path = '/metrics') => {
    const { port } = t.metricsListener!.address;
    return fetch(`http://127.0.0.1:${port}${path}`);
  };
  before(async () => {
    t = await buildTlsTestApp({ settings: { metricsAddress: { host: '127.0.0.1', port: 0 } } });
  });
  after(() => t.close());

  it('are off unless metrics.address is set', async () => {
    const plain = await buildTestApp();
    try {
      assert.equal(plain.metricsListener, undefined);
      assert.equal(plain.deps.metrics, undefined);
    } finally {
      await plain.close();
    }
  });

  it('count requests per operation, logins per method and result, refusals, transactions and sessions', async () => {
    const token = await t.loginAsAdmin();
    const user = await createUser(t, token);
    await login(t, user.username, user.password);
    const wrong = await t.call({
      method: 'POST',
      url: `${api}/authenticate?method=password`,
      payload: { username: user.username, password: 'wrong' },
    });
    assertError(wrong, 401, 'INVALID_AUTH');
    for (let i = 0; i < 2; i++)
      assert.equal((await t.call({ method: 'GET', url: `${api}/identities`, token })).status, 200);
    const snapshot = () => t.call({ method: 'POST', url: `${api}/database/snapshot`, token });
    if (testDatabaseUrl) {
      // PostgreSQL has no file copy to make (docs/operating.md, "On PostgreSQL"): refused, and counted as no rate
      // limit.
      assertError(await snapshot(), 501, 'NOT_IMPLEMENTED');
    } else {
      assert.equal((await snapshot()).status, 200);
      assertError(await snapshot(), 429, 'RATE_LIMITED');
    }

    const response = await scrape();
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const samples = parseMetrics(await response.text());
    const listed = { api: 'management', operation: 'listIdentities' };
    assert.equal(valueOf(samples, 'ziti_http_requests_total', { ...listed, method: 'GET', status: '200' }), 2);
    assert.equal(valueOf(samples, 'ziti_http_request_duration_seconds_count', listed), 2);
    assert.ok(valueOf(samples, 'ziti_http_request_duration_seconds_sum', listed) > 0);
    assert.equal(valueOf(samples, 'ziti_http_request_duration_seconds_bucket', { ...listed, le: '+Inf' }), 2);
    assert.equal(valueOf(samples, 'ziti_authentications_total', { method: 'password', result: 'success' }), 2);
    assert.equal(valueOf(samples, 'ziti_authentications_total', { method: 'password', result: 'failure' }), 1);
    assert.equal(
      valueOf(samples, 'ziti_rate_limited_requests_total', { operation: 'createDatabaseSnapshot' }),
      testDatabaseUrl ? 0 : 1,
    );
    assert.ok(
      valueOf(samples, 'ziti_store_transaction_duration_seconds_count') >= 4,
      'logins, the user, its authenticator',
    );
    assert.equal(valueOf(samples, 'ziti_api_sessions'), 2);
    assert.ok(valueOf(samples, 'ziti_process_cpu_user_seconds_total') > 0, 'the process defaults');
  });

  it('count the connections open on the API listener', async () => {
    const socket = connect({ host: '127.0.0.1', port: t.port, ca: t.rootCa, servername: 'localhost' });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    try {
      assert.ok(valueOf(parseMetrics(await (await scrape()).text()), 'ziti_http_open_connections') >= 1);
    } finally {
      socket.destroy();
    }
  });

  it('serve /health and /ready beside them, and 404 elsewhere', async () => {
    assert.deepEqual(await (await scrape('/health')).json(), { status: 'alive' });
    const ready = await scrape('/ready');
    assert.equal(ready.status, 200);
    assert.equal(((await ready.json()) as { status: string }).status, 'ready');
    assert.equal((await scrape('/elsewhere')).status, 404);
  });
});

// Not contract operations: requested with inject() directly, since the conformance helper admits only the contract's.
describe('health and readiness on the API listener', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  it('answers /health while the process serves', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/health' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'application/json');
    assert.deepEqual(response.json(), { status: 'alive' });
  });

  it('is ready while the store answers with every migration applied, and not once a shutdown began', async () => {
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    assert.equal(ready.statusCode, 200);
    const body = ready.json<{ status: string; checks: Record<string, string> }>();
    assert.equal(body.status, 'ready');
    assert.equal(body.checks.store, 'ok');
    assert.match(body.checks.migrations!, /^\d+ applied$/);
    t.deps.health.markStopping();
    const stopping = await t.app.inject({ method: 'GET', url: '/ready' });
    assert.equal(stopping.statusCode, 503);
    assert.deepEqual(stopping.json<{ status: string; checks: Record<string, string> }>().checks.lifecycle, 'stopping');
  });
});
