// Informational and well-known routes, on both API prefixes and the legacy and root paths clients use.
import { sequence } from '../steps.js';

export const platform = [
  sequence('version', async (s) => {
    await s.root.get('/version');
    await s.root.get('/');
    await s.root.get('/edge/v1/version');
    await s.management.get('/version');
    await s.client.get('/version');
    await s.as('anonymous').management.get('/version');
  }),
  sequence('well-known', async (s) => {
    await s.root.get('/.well-known/est/cacerts', { headers: { accept: '*/*' } });
    await s.client.get('/.well-known/est/cacerts', { headers: { accept: '*/*' } });
    await s.management.get('/.well-known/est/cacerts', { headers: { accept: '*/*' } });
    // Upstream's Go client sends Accept: application/json on everything (the harness's default), which go-openapi's
    // router accepts on every route; an Accept without either type is refused.
    await s.root.get('/.well-known/est/cacerts');
    await s.client.get('/.well-known/est/cacerts');
    await s.management.get('/.well-known/est/cacerts');
    await s.root.get('/.well-known/est/cacerts', { headers: { accept: 'text/html' } });
  }),
];
