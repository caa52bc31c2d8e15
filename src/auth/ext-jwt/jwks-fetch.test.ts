import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fetchJwks, JwksFetchError } from './jwks-fetch.js';

describe('fetchJwks', () => {
  let base = '';
  const server = createServer((request, response) => {
    if (request.url === '/slow') return; // never answers
    if (request.url === '/chunked') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"keys":[');
      response.end(`"${'x'.repeat(4096)}"]}`);
      return;
    }
    if (request.url === '/loop') return void response.writeHead(302, { location: '/loop' }).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[{"kty":"EC","kid":"a"}, 7]}');
  });
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  // Generous for the requests that answer (the suite runs under load); the slow one gets a short timeout of its own.
  const limits = { timeoutMs: 10_000, maxBytes: 1024, maxRedirects: 3 };

  it('returns the key objects of the document', async () => {
    assert.deepEqual(await fetchJwks(`${base}/jwks`, limits), { keys: [{ kty: 'EC', kid: 'a' }] });
  });

  it('gives up after its timeout', async () => {
    await assert.rejects(
      fetchJwks(`${base}/slow`, { ...limits, timeoutMs: 200 }),
      (error: Error) => error.name === 'TimeoutError',
    );
  });

  it('stops reading past the size cap even without a Content-Length', async () => {
    await assert.rejects(fetchJwks(`${base}/chunked`, limits), JwksFetchError);
  });

  it('refuses other schemes and endless redirects', async () => {
    await assert.rejects(fetchJwks('file:///etc/passwd', limits), JwksFetchError);
    await assert.rejects(fetchJwks(`${base}/loop`, limits), JwksFetchError);
  });
});
