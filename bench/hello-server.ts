// The ceiling: a bare Fastify HTTPS "hello" route with the controller's TLS setup, run as its own process.
// Usage: node --import tsx bench/hello-server.ts <pki folder> <port>
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';

const [pkiFolder, port] = process.argv.slice(2);
if (!pkiFolder || !port) throw new Error('usage: hello-server.ts <pki folder> <port>');

// The controller serves the server certificate followed by its signing CA (src/controller.ts, serverChainPem).
const pem = (name: string) => readFileSync(join(pkiFolder, name), 'utf8');
const cert = pem('server.cert.pem') + pem('signing-ca.cert.pem');
const key = pem('server.key.pem');

const app = Fastify({ logger: false, https: { key, cert, requestCert: true, rejectUnauthorized: false } });
app.get('/hello', (_request, reply) => {
  void reply.header('content-type', 'application/json').send('{"data":{"hello":"world"},"meta":{}}');
});

await app.listen({ host: '127.0.0.1', port: Number(port) });
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => void app.close().then(() => process.exit(0)));
}
