// An identity's links are the API's URL segments, in a fixed order (docs/reference/http-conventions.md §6.2–6.3).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { identityLinks, identityRef } from './identity-links.js';

test('an identity links its sub-lists under its own path and its auth policy by id, in a fixed order', () => {
  const base = './identities/i1';
  assert.deepEqual(Object.entries(identityLinks('i1', 'ap1')), [
    ['self', base],
    ['edge-router-policies', `${base}/edge-router-policies`],
    ['edge-routers', `${base}/edge-routers`],
    ['service-policies', `${base}/service-policies`],
    ['services', `${base}/services`],
    ['posture-data', `${base}/posture-data`],
    ['failed-service-requests', `${base}/failed-service-requests`],
    ['authenticators', `${base}/authenticators`],
    ['enrollments', `${base}/enrollments`],
    ['service-configs', `${base}/service-configs`],
    ['auth-policies', './auth-policies/ap1'],
  ]);
});

test('an identity reference carries the same links as hrefs', () => {
  const ref = identityRef({ id: 'i1', name: 'alice', authPolicyId: 'default' });
  assert.deepEqual(ref, {
    _links: Object.fromEntries(Object.entries(identityLinks('i1', 'default')).map(([k, href]) => [k, { href }])),
    entity: 'identities',
    id: 'i1',
    name: 'alice',
  });
});
