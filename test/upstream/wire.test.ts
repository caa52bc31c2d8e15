// The wire record: what it keeps and replaces in one answer, and that a comparison finds every kind of change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Peer } from './peers.js';
import { RunState, type Exchange } from './steps.js';
import { compareRecords, recordAnswer, type RecordedAnswer, type WireRecord } from './wire.js';

const peer: Peer = {
  name: 'ours',
  baseUrl: 'https://127.0.0.1:4433',
  caPem: '',
  username: 'admin',
  password: 'x',
  home: '/tmp/none',
  stop: async () => {},
};

function exchange(json: unknown, headers: Record<string, string> = {}): Exchange {
  const text = JSON.stringify(json);
  return {
    sequence: 's',
    key: 's: GET /edge/management/v1/identities',
    request: { method: 'GET', path: '/edge/management/v1/identities', headers: {}, caller: 'admin' },
    reply: {
      status: 200,
      contentType: 'application/json; charset=utf-8',
      headers: { 'content-type': 'application/json', ...headers },
      text,
      json,
    },
  };
}

test('an answer is recorded with what differs from run to run replaced and the rest kept', () => {
  const state = new RunState(peer);
  state.name('named-identity-id', 'alice');
  const body = {
    data: {
      id: 'named-identity-id',
      authPolicyId: 'Xy12ab34Z',
      createdAt: '2026-11-27T07:41:00.123Z',
      name: 'alice',
      href: 'https://127.0.0.1:4433/x',
    },
    error: {
      cause: {
        reason: 'entity type authPolicy referenced by identity: [named-identity-id]',
        message: `fingerprint ${'ab'.repeat(20)} in use`,
      },
    },
    keys: [{ kty: 'EC', x: 'abc', y: 'def', kid: 'key-2-a1b2c3' }],
  };
  const headers = {
    date: 'Fri, 27 Nov 2026 07:41:00 GMT',
    'content-length': '120',
    'ziti-instance-id': 'c1',
    'expires-at': '2026-11-27 08:04:39.528 +0000 UTC',
    server: 'ziti-controller/v0.1.0',
  };
  assert.deepEqual(recordAnswer(exchange(body, headers), state), {
    key: 's: GET /edge/management/v1/identities',
    status: 200,
    contentType: 'application/json',
    headers: {
      'content-type': 'application/json',
      'expires-at': '<go-time>',
      server: 'ziti-controller/v0.1.0',
      'ziti-instance-id': '<per-home>',
    },
    body: {
      data: { id: '<alice>', authPolicyId: '<id:1>', createdAt: '<time>', name: 'alice', href: '<base>/x' },
      error: {
        cause: {
          reason: 'entity type authPolicy referenced by identity: [<first-referrer>]',
          message: 'fingerprint <fingerprint> in use',
        },
      },
      keys: [{ kty: 'EC', x: '<key-material>', y: '<key-material>', kid: '<test-kid>' }],
    },
  });
});

const answer = (key: string, body: RecordedAnswer['body'], status = 200): RecordedAnswer => ({
  key,
  status,
  contentType: 'application/json',
  headers: { server: 'a' },
  body,
});
const record = (...answers: RecordedAnswer[]): WireRecord => ({ sequences: ['s'], answers, failures: [] });

test('two equal records compare equal', () => {
  const a = record(answer('k1', { data: ['x', 'y'] }), answer('k2', null));
  assert.deepEqual(compareRecords(a, structuredClone(a)), { differences: [], identical: 2 });
});

test('a comparison finds a changed status, header, value, key order, a missing answer and a new failure', () => {
  const before = record(answer('k1', { a: 1, b: 2 }), answer('k2', { n: 1 }), answer('k3', null), answer('k4', null));
  const changedHeader = { ...answer('k4', null), headers: { server: 'b' } };
  const after = {
    ...record(answer('k1', { b: 2, a: 1 }), answer('k2', { n: 2 }, 404), changedHeader, answer('k5', null)),
    failures: ['s: boom'],
  };
  assert.deepEqual(compareRecords(before, after).differences, [
    'k1: order: same values in another order',
    'k2: status: 200 ≠ 404',
    'k2: value: body.n: 1 ≠ 2',
    'k3: only in the first record',
    'k4: value: headers.server: "a" ≠ "b"',
    'k5: only in the second record',
    'failure only in the second record: s: boom',
  ]);
});
