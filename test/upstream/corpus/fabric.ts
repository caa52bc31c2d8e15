// The fabric management API (`/fabric/v1`): what `ziti fabric list|delete` calls, its access and its error envelopes.
import { sequence } from '../steps.js';
import { ordinaryUser } from './fixtures.js';

const q = (filter: string) => `?filter=${encodeURIComponent(filter)}`;

export const fabric = [
  sequence('fabric-lists', async (s) => {
    const service = await s.create('fab-service', '/services', {
      name: 'fab-service',
      encryptionRequired: true,
      terminatorStrategy: 'weighted',
    });
    const edge = await s.create('fab-edge-router', '/edge-routers', { name: 'fab-edge-router', cost: 3 });
    const transit = await s.create('fab-transit-router', '/transit-routers', { name: 'fab-transit-router' });
    const terminator = await s.create('fab-terminator', '/terminators', {
      service,
      router: transit,
      address: 'tcp:127.0.0.1:9',
      binding: 'transport',
      cost: 2,
      precedence: 'required',
      tags: {},
    });
    const f = s.fabric;
    await f.get(`/routers${q('name contains "fab-"')}&sort=name`);
    await f.get(`/routers${q('connected = false and cost = 3')}`);
    await f.get(`/routers/${edge}`);
    await f.get(`/routers/${transit}/terminators`);
    await f.get(`/services${q('name = "fab-service"')}`);
    await f.get(`/services/${service}`);
    await f.get(`/services/${service}/terminators`);
    await f.get(`/terminators${q('router.name = "fab-transit-router"')}`);
    await f.get(`/terminators/${terminator}`);
    await f.get('/links');
    await f.get(`/links${q('state = "Connected"')}&limit=5&offset=0`);
    await f.get('/circuits');
    await f.get(`/circuits${q('clientId != ""')}&sort=createdAt`);
  }),
  sequence('fabric-refusals', async (s) => {
    await ordinaryUser(s, 'fab-user');
    for (const caller of ['anonymous', 'fab-user']) {
      await s.as(caller).fabric.get('/routers');
      await s.as(caller).fabric.get('/circuits');
      await s.as(caller).fabric.delete('/circuits/no-such-circuit', { body: { immediate: false } });
    }
    const f = s.fabric;
    await f.get('/routers/no-such-router');
    await f.get('/services/no-such-service');
    await f.get('/terminators/no-such-terminator');
    await f.get('/links/no-such-link');
    await f.get('/circuits/no-such-circuit');
    await f.get('/routers/no-such-router/terminators');
    await f.get(`/routers${q('no_such_symbol = 1')}`);
    await f.get(`/circuits${q('name = "x"')}`);
    await f.get('/routers?sort=nope');
    await f.get('/routers?limit=x');
    await f.get('/version');
    // A path with one other method: upstream lists several in Go's random map order.
    await f.post('/circuits', { body: {} });
    await f.delete('/circuits/no-such-circuit', { body: { immediate: true } });
    await f.delete('/terminators/no-such-terminator', { body: { immediate: false } });
  }),
];
