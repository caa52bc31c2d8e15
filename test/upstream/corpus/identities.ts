// Identities: the life cycle with the console's full bodies, enrollment options at creation, disable/enable, the
// per-identity lists, service-config overrides and policy advice; identity types and role attributes.
import { sequence } from '../steps.js';
import { crud } from './crud.js';
import { builtInConfigType } from './entities.js';

/** What the Ziti Admin Console sends: every field, blanks as `""`. */
const consoleIdentity = (name: string, roleAttributes: string[]) => ({
  name,
  type: 'User',
  isAdmin: false,
  roleAttributes,
  externalId: '',
  authPolicyId: 'default',
  appData: {},
  tags: {},
  defaultHostingCost: 0,
  defaultHostingPrecedence: 'default',
  serviceHostingCosts: {},
  serviceHostingPrecedences: {},
  enrollment: { ott: true },
});

export const identities = [
  crud({
    name: 'identities',
    path: '/identities',
    setup: async (s) => {
      const service = await s.create('advice-service', '/services', {
        name: 'advice-service',
        encryptionRequired: true,
        roleAttributes: ['advice'],
      });
      const config = await s.create('advice-config', '/configs', {
        name: 'advice-config',
        configTypeId: await builtInConfigType(s, 'intercept.v1'),
        data: { protocols: ['tcp'], addresses: ['advice.ziti'], portRanges: [{ low: 443, high: 443 }] },
      });
      await s.create('advice-policy', '/service-policies', {
        name: 'advice-policy',
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: ['#a'],
        serviceRoles: ['#advice'],
      });
      return { service, config };
    },
    create: () => consoleIdentity('idt-one', ['a']),
    update: () => ({
      ...consoleIdentity('idt-renamed', ['a', 'b']),
      enrollment: undefined,
      defaultHostingCost: 5,
      serviceHostingCosts: {},
    }),
    patch: () => ({ roleAttributes: ['b'], isAdmin: false }),
    related: [
      'authenticators',
      'edge-router-policies',
      'edge-routers',
      'enrollments',
      'failed-service-requests',
      'posture-data',
      'service-configs',
      'service-policies',
      'services',
    ],
    invalid: () => [
      { name: 'idt-bad-type', type: 'Robot', isAdmin: false },
      { name: 'idt-bad-policy', type: 'User', isAdmin: false, authPolicyId: 'no-such-policy' },
      { name: 'idt-two-enrollments', type: 'User', isAdmin: false, enrollment: { ott: true, updb: 'user' } },
    ],
    more: async (s, id, ids) => {
      await s.patch(`/identities/${id}`, { body: { roleAttributes: ['a'] } });
      await s.get(`/identities/${id}/policy-advice/${ids.service}`);
      await s.get(`/identities/${id}/policy-advice/no-such-service`);
      await s.post(`/identities/${id}/service-configs`, { body: [{ serviceId: ids.service, configId: ids.config }] });
      await s.get(`/identities/${id}/service-configs`);
      await s.post(`/identities/${id}/service-configs`, {
        body: [{ serviceId: 'no-such-service', configId: ids.config }],
      });
      await s.delete(`/identities/${id}/service-configs`, { body: [{ serviceId: ids.service, configId: ids.config }] });
      await s.delete(`/identities/${id}/service-configs`, { body: [] });
      await s.post(`/identities/${id}/disable`, { body: { durationMinutes: 10 } });
      await s.get(`/identities/${id}`);
      await s.post(`/identities/${id}/enable`);
      await s.post(`/identities/${id}/disable`, { body: { durationMinutes: -1 } });
      await s.post('/identities/no-such-id/enable');
      await s.put(`/identities/${id}/trace`, {
        body: { enabled: true, duration: '1m', traceId: 'diff', channels: ['edge'] },
      });
      await s.delete(`/identities/${id}/mfa`);
    },
  }),
  sequence('identity-enrollment-options', async (s) => {
    for (const [label, enrollment] of Object.entries({
      ott: { ott: true },
      updb: { updb: 'option-updb' },
      none: {},
      nulls: { ott: null, ottca: null, updb: null },
    })) {
      const id = await s.create(`option-${label}`, '/identities', {
        name: `option-${label}`,
        type: 'User',
        isAdmin: false,
        enrollment,
      });
      await s.get(`/identities/${id}`);
      await s.get(`/identities/${id}/enrollments`);
    }
    await s.create('option-admin', '/identities', {
      name: 'option-admin',
      type: 'User',
      isAdmin: true,
      roleAttributes: null,
      tags: null,
    });
    await s.get(`/identities?filter=${encodeURIComponent('name contains "option-" and isAdmin = true')}`);
    await s.get(`/identities?filter=${encodeURIComponent('type = "User"')}&sort=${encodeURIComponent('name asc')}`);
  }),
  sequence('identity-types-and-attributes', async (s) => {
    await s.get('/identity-types');
    await s.get('/identity-types/Default');
    await s.get('/identity-types/User');
    await s.get('/identity-types/no-such-type');
    await s.create('attr-one', '/identities', {
      name: 'attr-one',
      type: 'User',
      isAdmin: false,
      roleAttributes: ['zeta', 'alpha', 'beta'],
    });
    await s.create('attr-two', '/identities', {
      name: 'attr-two',
      type: 'User',
      isAdmin: false,
      roleAttributes: ['alpha'],
    });
    await s.get('/identity-role-attributes');
    await s.get(
      `/identity-role-attributes?filter=${encodeURIComponent('id contains "a"')}&sort=${encodeURIComponent('id desc')}`,
    );
    await s.get('/identity-role-attributes?limit=1&offset=1');
    await s.get(`/identity-role-attributes?filter=${encodeURIComponent('name = "x"')}`);
  }),
];
