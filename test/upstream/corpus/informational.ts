// Informational routes of both APIs (specs, capabilities, protocols, controllers, summary), role-attribute and
// type lists.
import { sequence } from '../steps.js';

export const informational = [
  sequence('specs', async (s) => {
    for (const api of [s.management, s.client]) {
      const list = await api.get('/specs');
      const id = String(list.data?.[0]?.id ?? 'missing');
      await api.get(`/specs/${id}`);
      await api.get(`/specs/${id}/spec`);
      await api.get(`/specs/${id}/spec`, { headers: { accept: 'text/yaml' } });
      await api.get('/specs/no-such-spec');
      await api.get('/specs/no-such-spec/spec');
    }
  }),
  sequence('capabilities-and-protocols', async (s) => {
    for (const api of [s.management, s.client]) {
      await api.get('/enumerated-capabilities');
      await api.get('/controllers');
      await api.as('anonymous').get('/controllers');
      await api.get('/');
    }
    await s.client.get('/protocols');
    await s.client.get('/external-jwt-signers');
    await s.client.as('anonymous').get('/external-jwt-signers');
    await s.management.get('/summary');
  }),
  sequence('role-attributes-and-types', async (s) => {
    await s.create('ra-service', '/services', {
      name: 'ra-service',
      encryptionRequired: true,
      roleAttributes: ['blue', 'green'],
    });
    await s.create('ra-router', '/edge-routers', { name: 'ra-router', roleAttributes: ['north'] });
    await s.create('ra-check', '/posture-checks', {
      name: 'ra-check',
      typeId: 'DOMAIN',
      domains: ['corp.example'],
      roleAttributes: ['corp'],
    });
    for (const path of ['/service-role-attributes', '/edge-router-role-attributes', '/posture-check-role-attributes']) {
      await s.get(path);
      await s.get(`${path}?filter=${encodeURIComponent('id = "green"')}`);
      await s.get(`${path}?sort=${encodeURIComponent('id desc')}&limit=1`);
    }
    await s.get('/posture-check-types');
    await s.get('/posture-check-types/OS');
    await s.get('/posture-check-types/PROCESS_MULTI');
    await s.get('/posture-check-types/no-such-type');
  }),
];
