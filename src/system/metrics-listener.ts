// The metrics listener: plain HTTP on its own address (off unless `metrics.address` is set), serving `/metrics` in
// Prometheus' text format and `/health` and `/ready` for probes that should not need the API's TLS.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ListenAddress } from '../settings/setting-spec.js';
import type { Health } from './health.js';
import { livenessReply, readinessReply, type PlainReply } from './health-routes.js';
import type { Metrics } from './metrics.js';

export interface MetricsListener {
  /** Where it listens (the port chosen when the setting asked for port 0). */
  address: AddressInfo;
  close(): Promise<void>;
}

export async function listenForMetrics(
  address: ListenAddress,
  metrics: Metrics,
  health: Health,
): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?', 1)[0];
    const answer = async (): Promise<PlainReply & { type?: string }> => {
      if (request.method !== 'GET') return { status: 405, body: 'method not allowed\n', type: 'text/plain' };
      if (path === '/metrics')
        return { status: 200, body: await metrics.registry.metrics(), type: metrics.registry.contentType };
      if (path === '/health') return livenessReply();
      if (path === '/ready') return readinessReply(health);
      return { status: 404, body: 'not found\n', type: 'text/plain' };
    };
    answer().then(
      ({ status, body, type }) =>
        response
          .writeHead(status, { 'content-type': type ?? 'application/json', 'cache-control': 'no-store' })
          .end(body),
      (error: unknown) =>
        response
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => resolve());
  });
  // A server listening on a TCP port has an AddressInfo (a string only for pipes and sockets).
  const bound = server.address();
  if (bound === null || typeof bound === 'string') throw new Error('the metrics listener is not on a TCP port');
  return {
    address: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Scrapers keep their connections open; nothing they wait for is lost.
        server.closeAllConnections();
      }),
  };
}
