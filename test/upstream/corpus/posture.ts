// Posture as an SDK reports it: a service guarded by every kind of posture check, the client's service list with
// its posture queries before and after the responses (single and bulk, every response type, ENDPOINT_STATE), the
// refused session and what the admin then sees (failed service requests, posture data), and the session once
// posture passes.
import { randomUUID } from 'node:crypto';
import { sequence, type Steps } from '../steps.js';
import { enrolledEdgeRouter, enrolledIdentity } from './fixtures.js';

const AGENT_HASH = 'a3'.repeat(64);
const SIGNER = '0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c';

/** Every posture check type but MFA, each with its own role attribute; returns their ids by type. */
async function postureChecks(s: Steps): Promise<Record<string, string>> {
  const linux = { osType: 'Linux' };
  return {
    OS: await s.create('pr-os', '/posture-checks', {
      name: 'pr-os',
      typeId: 'OS',
      roleAttributes: ['pr'],
      operatingSystems: [{ type: 'Linux', versions: ['>=5.10.0'] }],
    }),
    MAC: await s.create('pr-mac', '/posture-checks', {
      name: 'pr-mac',
      typeId: 'MAC',
      roleAttributes: ['pr'],
      macAddresses: ['00:11:22:33:44:55'],
    }),
    DOMAIN: await s.create('pr-domain', '/posture-checks', {
      name: 'pr-domain',
      typeId: 'DOMAIN',
      roleAttributes: ['pr'],
      domains: ['corp.example'],
    }),
    PROCESS: await s.create('pr-process', '/posture-checks', {
      name: 'pr-process',
      typeId: 'PROCESS',
      roleAttributes: ['pr'],
      process: { ...linux, path: '/usr/bin/agent', hashes: [AGENT_HASH], signerFingerprint: SIGNER },
    }),
    PROCESS_MULTI: await s.create('pr-multi', '/posture-checks', {
      name: 'pr-multi',
      typeId: 'PROCESS_MULTI',
      roleAttributes: ['pr'],
      semantic: 'AllOf',
      processes: [
        { ...linux, path: '/usr/bin/agent', hashes: [], signerFingerprints: [] },
        { ...linux, path: '/usr/sbin/guard', hashes: [], signerFingerprints: [] },
      ],
    }),
  };
}

/** What a healthy Linux endpoint reports, as the C SDK sends it (one bulk post). */
function deviceReport(checks: Record<string, string>) {
  return [
    { id: checks.OS, typeId: 'OS', type: 'Linux', version: '6.1.0', build: '6.1.0-13-amd64' },
    { id: checks.MAC, typeId: 'MAC', macAddresses: ['00:11:22:33:44:55', 'aa:bb:cc:dd:ee:ff'] },
    { id: checks.DOMAIN, typeId: 'DOMAIN', domain: 'corp.example' },
    {
      id: checks.PROCESS,
      typeId: 'PROCESS',
      path: '/usr/bin/agent',
      isRunning: true,
      hash: AGENT_HASH,
      signerFingerprints: [SIGNER],
    },
    {
      id: checks.PROCESS_MULTI,
      typeId: 'PROCESS',
      path: '/usr/sbin/guard',
      isRunning: true,
      hash: '',
      signerFingerprints: [],
    },
  ];
}

/**
 * A service `<prefix>-service` the identity `<prefix>-identity` (enrolled, logged in) may dial under the posture checks
 * with attribute `<prefix>`, through an enrolled edge router; its session is `me`.
 */
async function guardedService(s: Steps, prefix: string) {
  const service = await s.create(`${prefix}-service`, '/services', {
    name: `${prefix}-service`,
    encryptionRequired: true,
    roleAttributes: [`${prefix}-service`],
  });
  const clients = [`#${prefix}-clients`];
  await s.create(`${prefix}-dial`, '/service-policies', {
    name: `${prefix}-dial`,
    type: 'Dial',
    semantic: 'AnyOf',
    identityRoles: clients,
    serviceRoles: [`#${prefix}-service`],
    postureCheckRoles: [`#${prefix}`],
  });
  await enrolledEdgeRouter(s, `${prefix}-router`, [`${prefix}-routers`]);
  await s.create(`${prefix}-erp`, '/edge-router-policies', {
    name: `${prefix}-erp`,
    semantic: 'AnyOf',
    identityRoles: clients,
    edgeRouterRoles: [`#${prefix}-routers`],
  });
  await s.create(`${prefix}-serp`, '/service-edge-router-policies', {
    name: `${prefix}-serp`,
    semantic: 'AnyOf',
    serviceRoles: [`#${prefix}-service`],
    edgeRouterRoles: [`#${prefix}-routers`],
  });
  const identity = await enrolledIdentity(s, `${prefix}-identity`, [`${prefix}-clients`]);
  return { service, identity, me: s.as(`${prefix}-identity`).client };
}

export const posture = [
  sequence('posture-responses', async (s) => {
    const checks = await postureChecks(s);
    const { service, identity, me } = await guardedService(s, 'pr');

    await me.get('/services');
    await me.get('/current-api-session/service-updates');
    await me.post('/sessions', { body: { serviceId: service, type: 'Dial' } });
    await s.get(`/identities/${identity.id}/failed-service-requests`);
    await s.get(`/identities/${identity.id}/posture-data`);

    // One response at a time, then the rest in bulk (the C SDK's start), then the ENDPOINT_STATE it sends alone.
    const [os, ...rest] = deviceReport(checks);
    await me.post('/posture-response', { body: os });
    await me.get('/services');
    await me.post('/posture-response-bulk', { body: rest });
    await me.post('/posture-response', {
      body: { id: randomUUID(), typeId: 'ENDPOINT_STATE', woken: true, unlocked: false },
    });
    await me.get('/services');
    await me.get(`/services/${service}`);
    await s.get(`/identities/${identity.id}/posture-data`);
    const created = await me.post('/sessions', { body: { serviceId: service, type: 'Dial' } });
    s.name(created.data?.id, 'pr-session');
    s.name(created.data?.token, 'pr-session-token');

    // A report that no longer passes: the OS is too old and the agent stopped.
    await me.post('/posture-response-bulk', {
      body: [
        { id: checks.OS, typeId: 'OS', type: 'Linux', version: '4.19.0', build: '' },
        {
          id: checks.PROCESS,
          typeId: 'PROCESS',
          path: '/usr/bin/agent',
          isRunning: false,
          hash: AGENT_HASH,
          signerFingerprints: [SIGNER],
        },
      ],
    });
    await me.get('/services');
    await me.post('/sessions', { body: { serviceId: service, type: 'Bind' } });
    await s.get(`/identities/${identity.id}/failed-service-requests`);

    // Bodies the contract or the handlers refuse.
    await me.post('/posture-response', { body: { id: checks.OS, typeId: 'NOPE' } });
    await me.post('/posture-response', { body: { typeId: 'OS', type: 'Linux', version: '6.1.0' } });
    await me.post('/posture-response', { body: { id: checks.OS, typeId: 'OS', type: 'Linux' } });
    await me.post('/posture-response-bulk', { body: [] });
    await me.post('/posture-response-bulk', { body: [{ id: checks.MAC, typeId: 'MAC', macAddresses: null }] });
    await s.as('anonymous').client.post('/posture-response', { body: os });
    await s.get('/identities/no-such-identity/posture-data');
    await s.get('/identities/no-such-identity/failed-service-requests');
  }),
  sequence('posture-mfa-endpoint-state', async (s) => {
    const check = await s.create('pm-mfa', '/posture-checks', {
      name: 'pm-mfa',
      typeId: 'MFA',
      roleAttributes: ['pm'],
      timeoutSeconds: 600,
      promptOnWake: true,
      promptOnUnlock: true,
      ignoreLegacyEndpoints: false,
    });
    const { service, identity, me } = await guardedService(s, 'pm');
    await me.get('/services');
    await me.post('/sessions', { body: { serviceId: service, type: 'Dial' } });
    // Wake and unlock before MFA passed: nothing to prompt for.
    await me.post('/posture-response', { body: { id: check, typeId: 'ENDPOINT_STATE', woken: true, unlocked: true } });
    await me.post('/posture-response-bulk', {
      body: [{ id: check, typeId: 'ENDPOINT_STATE', woken: false, unlocked: true }],
    });
    await s.get(`/identities/${identity.id}/posture-data`);
    await s.get(`/identities/${identity.id}/failed-service-requests`);
  }),
];
