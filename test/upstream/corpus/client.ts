// What an enrolled identity sees through the client API (services with configs, edge routers, service updates,
// terminators) and the client API's admin-only service writes. Sessions, posture and MFA have files of their own.
import { sequence } from '../steps.js';
import { builtInConfigType } from './entities.js';
import { enrolledIdentity } from './fixtures.js';

export const client = [
  sequence('client-services', async (s) => {
    const intercept = await builtInConfigType(s, 'intercept.v1');
    const host = await builtInConfigType(s, 'host.v1');
    const dialConfig = await s.create('dial-config', '/configs', {
      name: 'dial-config',
      configTypeId: intercept,
      data: { protocols: ['tcp'], addresses: ['web.ziti'], portRanges: [{ low: 80, high: 80 }] },
    });
    const hostConfig = await s.create('host-config', '/configs', {
      name: 'host-config',
      configTypeId: host,
      data: { protocol: 'tcp', address: '127.0.0.1', port: 8080 },
    });
    const web = await s.create('web-service', '/services', {
      name: 'web-service',
      encryptionRequired: true,
      roleAttributes: ['web'],
      configs: [dialConfig, hostConfig],
    });
    await s.create('db-service', '/services', {
      name: 'db-service',
      encryptionRequired: false,
      roleAttributes: ['db'],
    });
    await s.create('client-edge-router', '/edge-routers', { name: 'client-edge-router', roleAttributes: ['public'] });
    await s.create('client-dial', '/service-policies', {
      name: 'client-dial',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#clients'],
      serviceRoles: ['#web', '#db'],
    });
    await s.create('client-bind', '/service-policies', {
      name: 'client-bind',
      type: 'Bind',
      semantic: 'AnyOf',
      identityRoles: ['#clients'],
      serviceRoles: ['#db'],
    });
    await s.create('client-erp', '/edge-router-policies', {
      name: 'client-erp',
      semantic: 'AnyOf',
      identityRoles: ['#clients'],
      edgeRouterRoles: ['#public'],
    });
    await s.create('client-serp', '/service-edge-router-policies', {
      name: 'client-serp',
      semantic: 'AnyOf',
      serviceRoles: ['#all'],
      edgeRouterRoles: ['#all'],
    });
    const me = await enrolledIdentity(s, 'client-identity', ['clients']);
    const session = s.as('client-identity').client;
    await session.get('/services');
    await session.get('/services?limit=25&offset=0');
    await session.get('/services?configTypes=all');
    await session.get(`/services?configTypes=${intercept}&configTypes=host.v1`);
    await session.get(`/services?filter=${encodeURIComponent('name = "web-service"')}`);
    await session.get('/services?roleFilter=%23web&roleSemantic=AnyOf');
    await session.get(`/services/${web}`);
    await session.get('/services/no-such-id');
    await session.get(`/services/${web}/edge-routers`);
    await session.get(`/services/${web}/terminators`);
    await session.get('/current-identity/edge-routers');
    await session.get('/current-identity/edge-routers?limit=25&offset=0');
    await session.get('/current-api-session/service-updates');
    await session.get('/current-api-session/service-updates/');
    await s.get(`/identities/${me.id}/services`);
    await s.get(`/identities/${me.id}/edge-routers`);
    await s.get(`/identities/${me.id}/service-policies`);
    await s.get(`/identities/${me.id}/edge-router-policies`);
    await s.get(`/identities/${me.id}/policy-advice/${web}`);
    await s.get(`/services/${web}/identities`);
    await s.get(`/services/${web}/edge-routers`);
    await s.client.get(`/services/${web}`);
    await s.client.patch(`/services/${web}`, { body: { roleAttributes: ['web', 'extra'] } });
    await s.client.put(`/services/${web}`, {
      body: { name: 'web-service', encryptionRequired: true, roleAttributes: ['web'], configs: [dialConfig] },
    });
    await session.patch(`/services/${web}`, { body: { roleAttributes: [] } });
    await session.get('/current-api-session/service-updates');
    await s.client.delete(`/services/${web}`);
    await session.get('/services');
  }),
];
