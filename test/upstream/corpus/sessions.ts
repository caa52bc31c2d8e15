// Service sessions as SDKs use them: an enrolled identity dials and binds through an enrolled (offline) edge
// router, reuses its sessions, meets each refusal in upstream's order, sees only its own sessions, asks for a
// service's edge routers with and without a session token; admins list, filter, read and delete sessions; and
// sessions go when their ground goes (a policy, an attribute, a logout).
import { randomUUID } from 'node:crypto';
import { sequence, type Steps } from '../steps.js';
import { enrolledEdgeRouter, enrolledIdentity, ordinaryUser } from './fixtures.js';

/** A session as the C SDK asks for one; the new session's id and token get names. */
async function dial(s: Steps, name: string, body: Record<string, unknown>): Promise<string> {
  const created = await s.post('/sessions', { body });
  s.name(created.data?.id, name);
  s.name(created.data?.token, `${name}-token`);
  return String(created.data?.id ?? `missing-${name}`);
}

/** Services, policies and an edge router shared by the identities of `#<prefix>-clients`. */
async function sessionNetwork(s: Steps, prefix: string) {
  const both = await s.create(`${prefix}-both`, '/services', {
    name: `${prefix}-both`,
    encryptionRequired: true,
    roleAttributes: [`${prefix}-both`],
  });
  const dialOnly = await s.create(`${prefix}-dial-only`, '/services', {
    name: `${prefix}-dial-only`,
    encryptionRequired: true,
    roleAttributes: [`${prefix}-dial`],
  });
  const noRouter = await s.create(`${prefix}-no-router`, '/services', {
    name: `${prefix}-no-router`,
    encryptionRequired: false,
    roleAttributes: [`${prefix}-dial`],
  });
  await s.create(`${prefix}-dial`, '/service-policies', {
    name: `${prefix}-dial`,
    type: 'Dial',
    semantic: 'AnyOf',
    identityRoles: [`#${prefix}-clients`],
    serviceRoles: [`#${prefix}-both`, `#${prefix}-dial`],
  });
  await s.create(`${prefix}-bind`, '/service-policies', {
    name: `${prefix}-bind`,
    type: 'Bind',
    semantic: 'AnyOf',
    identityRoles: [`#${prefix}-clients`],
    serviceRoles: [`#${prefix}-both`],
  });
  const router = await enrolledEdgeRouter(s, `${prefix}-router`, [`${prefix}-routers`]);
  await s.create(`${prefix}-erp`, '/edge-router-policies', {
    name: `${prefix}-erp`,
    semantic: 'AnyOf',
    identityRoles: [`#${prefix}-clients`],
    edgeRouterRoles: [`#${prefix}-routers`],
  });
  await s.create(`${prefix}-serp`, '/service-edge-router-policies', {
    name: `${prefix}-serp`,
    semantic: 'AnyOf',
    serviceRoles: [`@${both}`, `@${dialOnly}`],
    edgeRouterRoles: [`#${prefix}-routers`],
  });
  return { both, dialOnly, noRouter, router };
}

export const sessions = [
  sequence('client-sessions', async (s) => {
    const { both, dialOnly, noRouter } = await sessionNetwork(s, 'cs');
    const identity = await enrolledIdentity(s, 'cs-identity', ['cs-clients']);
    await ordinaryUser(s, 'cs-outsider');
    const me = s.as('cs-identity').client;
    const dialed = await dial(me, 'cs-dial-session', { serviceId: both, type: 'Dial' });
    // Reuse: the same API session, service and type give the same session back; no type means Dial.
    await me.post('/sessions', { body: { serviceId: both, type: 'Dial' } });
    await me.post('/sessions', { body: { serviceId: both } });
    const bound = await dial(me, 'cs-bind-session', { serviceId: both, type: 'Bind' });
    await dial(me, 'cs-dial-only-session', { serviceId: dialOnly, type: 'Dial', tags: {} });
    // Refusals in upstream's order: an invisible service, a missing permission, no shared edge router.
    await me.post('/sessions', { body: { serviceId: 'no-such-service', type: 'Dial' } });
    await me.post('/sessions', { body: { serviceId: dialOnly, type: 'Bind' } });
    await me.post('/sessions', { body: { serviceId: noRouter, type: 'Dial' } });
    await me.post('/sessions', { body: { serviceId: both, type: 'Both' } });
    await me.post('/sessions', { body: {} });
    await s.as('cs-outsider').client.post('/sessions', { body: { serviceId: both, type: 'Dial' } });
    await s.as('anonymous').client.post('/sessions', { body: { serviceId: both, type: 'Dial' } });
    // Admins are let in to see any service, yet hold no Dial permission on this one.
    await s.client.post('/sessions', { body: { serviceId: both, type: 'Dial' } });
    // Own sessions only, on the client API.
    await me.get('/sessions');
    await me.get(`/sessions?filter=${encodeURIComponent('type = "Bind"')}`);
    await me.get(`/sessions/${dialed}`);
    await me.get(`/sessions/${dialed}/`);
    await s.as('cs-outsider').client.get('/sessions');
    await s.as('cs-outsider').client.get(`/sessions/${dialed}`);
    await s.as('cs-outsider').client.delete(`/sessions/${dialed}`);
    await me.get('/sessions/no-such-session');
    // A service's edge routers, with the session token the SDK got and without one.
    await me.get(`/services/${both}/edge-routers`);
    const sessionToken = (await me.get(`/sessions/${dialed}`)).data?.token;
    await me.get(`/services/${both}/edge-routers`, { headers: { 'session-token': String(sessionToken) } });
    await me.get(`/services/${both}/edge-routers`, { headers: { 'session-token': randomUUID() } });
    await me.get(`/services/${both}/edge-routers`, { headers: { 'session-token': 'not-a-token' } });
    await me.get(`/services/${noRouter}/edge-routers`);
    await me.get('/services/no-such-service/edge-routers');
    await s.as('cs-outsider').client.get(`/services/${both}/edge-routers`);
    await me.get('/current-identity/edge-routers');
    await me.delete(`/sessions/${bound}`);
    await me.get(`/sessions/${bound}`);
    await me.delete(`/sessions/${bound}`);
    await s.get(`/identities/${identity.id}`);
  }),
  sequence('management-sessions', async (s) => {
    const { both, dialOnly } = await sessionNetwork(s, 'ms');
    await enrolledIdentity(s, 'ms-identity', ['ms-clients']);
    const me = s.as('ms-identity').client;
    const dialed = await dial(me, 'ms-dial-session', { serviceId: both, type: 'Dial' });
    await dial(me, 'ms-bind-session', { serviceId: both, type: 'Bind' });
    await dial(me, 'ms-other-session', { serviceId: dialOnly, type: 'Dial' });
    await s.get('/sessions');
    await s.get('/sessions?limit=1&offset=1');
    await s.get(`/sessions?filter=${encodeURIComponent('type = "Dial"')}&sort=${encodeURIComponent('createdAt desc')}`);
    await s.get(`/sessions?filter=${encodeURIComponent(`service = "${both}"`)}`);
    await s.get(`/sessions?filter=${encodeURIComponent(`service.name = "ms-both"`)}`);
    await s.get(`/sessions?filter=${encodeURIComponent('noSuchField = 1')}`);
    await s.get(`/sessions/${dialed}`);
    await s.get(`/sessions/${dialed}/route-path`);
    await s.get('/sessions/no-such-session/route-path');
    await s.get('/sessions/no-such-session');
    await me.management.get('/sessions');
    await me.management.get(`/sessions/${dialed}`);
    await s.delete(`/sessions/${dialed}`);
    await s.get(`/sessions/${dialed}`);
    await s.delete('/sessions/no-such-session');
    await s.as('anonymous').management.get('/sessions');
  }),
  sequence('sessions-follow-their-ground', async (s) => {
    const { both, dialOnly } = await sessionNetwork(s, 'fg');
    const identity = await enrolledIdentity(s, 'fg-identity', ['fg-clients']);
    const me = s.as('fg-identity').client;
    const dialed = await dial(me, 'fg-dial-session', { serviceId: both, type: 'Dial' });
    const bound = await dial(me, 'fg-bind-session', { serviceId: both, type: 'Bind' });
    const other = await dial(me, 'fg-other-session', { serviceId: dialOnly, type: 'Dial' });
    // The Bind policy goes: only the Bind session goes with it.
    const bindPolicy = (await s.get(`/service-policies?filter=${encodeURIComponent('name = "fg-bind"')}`)).data?.[0]
      ?.id;
    await s.delete(`/service-policies/${bindPolicy}`);
    await s.wait(2500);
    await s.get(`/sessions/${bound}`);
    await s.get(`/sessions/${dialed}`);
    // The identity loses its attribute: its Dial sessions go too.
    await s.patch(`/identities/${identity.id}`, { body: { roleAttributes: [] } });
    await s.wait(2500);
    await s.get(`/sessions/${dialed}`);
    await s.get(`/sessions/${other}`);
    await me.get('/sessions');
    // Back in, a new session; then logout ends the API session and its sessions.
    await s.patch(`/identities/${identity.id}`, { body: { roleAttributes: ['fg-clients'] } });
    const again = await dial(me, 'fg-again-session', { serviceId: both, type: 'Dial' });
    await me.delete('/current-api-session');
    await s.wait(2500);
    await s.get(`/sessions/${again}`);
    await s.get(`/sessions?filter=${encodeURIComponent(`service = "${both}"`)}`);
  }),
];
