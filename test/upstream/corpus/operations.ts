// What an operator does: integrity checks and fixes with their results, snapshots (and their rate limit), identity
// tracing on and off, the controllers list; and who may not.
import { sequence } from '../steps.js';
import { ordinaryUser } from './fixtures.js';

/** Long enough for either controller to finish a scan of the corpus's small database. */
const SCAN_MS = 1500;

export const operations = [
  sequence('database-integrity', async (s) => {
    await ordinaryUser(s, 'db-user');
    await s.get('/database/data-integrity-results');
    await s.post('/database/check-data-integrity');
    await s.wait(SCAN_MS);
    await s.get('/database/data-integrity-results');
    await s.post('/database/fix-data-integrity', { body: '' });
    await s.wait(SCAN_MS);
    await s.get('/database/data-integrity-results');
    await s.get('/database/data-integrity-results?limit=5&offset=0');
    for (const caller of ['anonymous', 'db-user']) {
      await s.as(caller).post('/database/check-data-integrity');
      await s.as(caller).post('/database/fix-data-integrity');
      await s.as(caller).get('/database/data-integrity-results');
      await s.as(caller).post('/database/snapshot');
    }
  }),
  sequence('database-snapshot', async (s) => {
    await s.post('/database/snapshot');
    await s.post('/database/snapshot');
  }),
  sequence('identity-tracing', async (s) => {
    const id = await s.create('trace-identity', '/identities', {
      name: 'trace-identity',
      type: 'Device',
      isAdmin: false,
    });
    await ordinaryUser(s, 'trace-user');
    await s.put(`/identities/${id}/trace`, {
      body: { enabled: true, duration: '5m', traceId: 'diff-trace', channels: ['edge'] },
    });
    await s.get(`/identities/${id}`);
    await s.put(`/identities/${id}/trace`, { body: { enabled: true, duration: '90s', traceId: '', channels: [] } });
    await s.put(`/identities/${id}/trace`, { body: { enabled: false } });
    await s.put(`/identities/${id}/trace`, { body: { enabled: false, duration: '', traceId: '', channels: null } });
    await s.put(`/identities/${id}/trace`, {
      body: { enabled: true, duration: 'five minutes', traceId: 'diff-trace' },
    });
    await s.put(`/identities/${id}/trace`, { body: {} });
    await s.put('/identities/no-such-identity/trace', {
      body: { enabled: true, duration: '1m', traceId: 'diff-trace' },
    });
    await s.as('trace-user').put(`/identities/${id}/trace`, { body: { enabled: false } });
    await s.as('anonymous').put(`/identities/${id}/trace`, { body: { enabled: false } });
  }),
  sequence('controllers', async (s) => {
    await ordinaryUser(s, 'ctrl-user');
    for (const api of [s.management, s.client]) {
      await api.get('/controllers');
      await api.get(`/controllers?filter=${encodeURIComponent('isOnline = true')}`);
      await api.get(`/controllers?filter=${encodeURIComponent('name contains "no-such-controller"')}`);
      await api.get('/controllers?limit=1&offset=5');
      await api.as('ctrl-user').get('/controllers');
      await api.as('anonymous').get('/controllers');
    }
  }),
];
