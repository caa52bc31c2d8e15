// Authentication and API sessions: password logins and their refusals on both APIs, the current API session and
// identity, self-service authenticators, API session administration, logout; who may call admin routes.
import { sequence } from '../steps.js';
import { ordinaryUser, PASSWORD } from './fixtures.js';

export const auth = [
  sequence('authenticate', async (s) => {
    await ordinaryUser(s, 'auth-user');
    const anonymous = s.as('anonymous');
    const login = (body: unknown, query = '?method=password') =>
      anonymous.client.post(`/authenticate${query}`, { body });
    await login({ username: 'auth-user-login', password: 'wrong-password' });
    await login({ username: 'no-such-user', password: PASSWORD });
    await login({ username: 'auth-user-login' });
    await login({ username: 'auth-user-login', password: '' });
    await login({ username: 'auth-user-login', password: 7 });
    await login({});
    await login('', '?method=password');
    await login({ username: 'auth-user-login', password: PASSWORD }, '?method=bogus');
    await login({ username: 'auth-user-login', password: PASSWORD }, '');
    await login({ username: 'auth-user-login', password: PASSWORD }, '?method=cert');
    await login({ username: 'auth-user-login', password: PASSWORD }, '?method=ext-jwt');
    await login({
      username: 'auth-user-login',
      password: PASSWORD,
      configTypes: ['all'],
      sdkInfo: { appId: 'diff', appVersion: '1', branch: '', revision: '', type: 'ziti-sdk-c', version: '1.0.12' },
      envInfo: { arch: 'x86_64', os: 'linux', osRelease: '6', osVersion: '1', hostname: 'h', domain: '' },
    });
    await anonymous.management.post('/authenticate?method=password', {
      body: { username: 'auth-user-login', password: PASSWORD },
    });
    await anonymous.management.post('/authenticate/mfa', { body: { code: '123456' } });
    await s.as('auth-user').client.post('/authenticate/mfa', { body: { code: '123456' } });
  }),
  sequence('current-session', async (s) => {
    const user = await ordinaryUser(s, 'session-user');
    const me = s.as('session-user');
    for (const api of [me.client, me.management]) {
      await api.get('/current-api-session');
      await api.get('/current-identity');
      await api.get('/current-identity/authenticators');
      await api.get(`/current-identity/authenticators/${user.authenticatorId}`);
      await api.get('/current-identity/authenticators/no-such-id');
    }
    await me.client.get('/current-identity/edge-routers');
    await me.client.get('/current-api-session/service-updates');
    await me.client.get('/current-api-session/certificates');
    await s.client.get('/current-identity');
    await s.as('anonymous').client.get('/current-identity');
    await s.as('anonymous').client.get('/current-api-session');
    await s.client.get('/current-identity', { headers: { 'zt-session': 'not-a-session-token' } });
    await s.client.get('/current-identity', { headers: { authorization: 'Bearer not-a-jwt' } });
  }),
  sequence('self-service-authenticators', async (s) => {
    const user = await ordinaryUser(s, 'self-user');
    const me = s.as('self-user').client;
    const path = `/current-identity/authenticators/${user.authenticatorId}`;
    await me.put(path, {
      body: { username: 'self-user-login', password: 'New-Password-22', currentPassword: 'wrong-password' },
    });
    await me.put(path, {
      body: { username: 'self-user-login', password: 'New-Password-22', currentPassword: PASSWORD },
    });
    await me.patch(path, { body: { password: 'Newer-Password-33', currentPassword: 'New-Password-22' } });
    await me.patch(path, { body: { username: 'self-user-renamed', currentPassword: 'Newer-Password-33' } });
    await me.patch(path, { body: { password: 'x', currentPassword: 'Newer-Password-33' } });
    await me.patch(path, { body: { password: 'Another-Password-44' } });
    await me.get(path);
    await me.management.put(path, {
      body: { username: 'self-user-renamed', password: 'Mgmt-Password-55', currentPassword: 'wrong-password' },
    });
    await me.management.patch(path, { body: { password: 'Mgmt-Password-55', currentPassword: 'Newer-Password-33' } });
    await me.post(`${path}/extend`, { body: { clientCertCsr: 'not a csr' } });
    await me.post(`${path}/extend-verify`, { body: { clientCert: 'not a certificate' } });
    await s.client
      .as('anonymous')
      .post('/authenticate?method=password', { body: { username: 'self-user-renamed', password: 'Mgmt-Password-55' } });
  }),
  sequence('api-sessions', async (s) => {
    await ordinaryUser(s, 'sessions-user');
    const sessions = await s.get(`/api-sessions?filter=${encodeURIComponent('identity.name = "sessions-user"')}`);
    const id = sessions.data?.[0]?.id;
    s.name(id, 'sessions-user-api-session');
    await s.get(`/api-sessions/${id}`);
    await s.get('/api-sessions/no-such-id');
    await s.get(`/api-sessions?filter=${encodeURIComponent('identity = "no-such-identity"')}`);
    await s.as('sessions-user').client.get('/current-identity');
    await s.delete(`/api-sessions/${id}`);
    await s.as('sessions-user').client.get('/current-identity');
    await s.delete('/api-sessions/no-such-id');
  }),
  sequence('logout', async (s) => {
    await ordinaryUser(s, 'logout-user');
    const me = s.as('logout-user');
    await me.client.delete('/current-api-session');
    await me.client.get('/current-api-session');
    await me.client.delete('/current-api-session');
    await s.client.login('logout-user', 'logout-user-login', PASSWORD);
    await me.management.delete('/current-api-session');
    await me.management.get('/current-identity');
  }),
  sequence('admin-routes', async (s) => {
    await ordinaryUser(s, 'plain-user');
    const admin = [
      '/identities',
      '/services',
      '/configs',
      '/config-types',
      '/edge-routers',
      '/service-policies',
      '/edge-router-policies',
    ];
    admin.push(
      '/service-edge-router-policies',
      '/posture-checks',
      '/cas',
      '/auth-policies',
      '/authenticators',
      '/enrollments',
      '/api-sessions',
    );
    admin.push(
      '/terminators',
      '/routers',
      '/transit-routers',
      '/summary',
      '/identity-role-attributes',
      '/identity-types',
      '/posture-check-types',
    );
    for (const caller of ['anonymous', 'plain-user']) {
      for (const path of admin) await s.as(caller).get(path);
      await s.as(caller).post('/services', { body: { name: 'not-allowed', encryptionRequired: true } });
      await s.as(caller).delete('/identities/no-such-id');
      await s.as(caller).client.get('/services');
      await s.as(caller).client.put('/services/no-such-id', { body: { name: 'x' } });
    }
    await s.as('plain-user').management.get('/current-identity');
    await s.as('plain-user').management.get('/version');
  }),
];
