// An HTTPS proxy in front of our controller that records what a client sends (method, path, content type, body)
// and passes every request through unchanged. It presents the controller's own server certificate, so a client that
// trusts the controller's CA trusts it too.
import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  body: string;
  status: number;
}

export interface RecordingProxy {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startRecordingProxy(target: {
  baseUrl: string;
  caPem: string;
  certPem: string;
  keyPem: string;
}): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  const server = https.createServer({ cert: target.certPem, key: target.keyPem }, (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers = { ...incoming.headers, host: new URL(target.baseUrl).host };
      const forwarded = https.request(
        `${target.baseUrl}${incoming.url ?? '/'}`,
        { method: incoming.method, headers, ca: target.caPem, agent: false },
        (reply) => {
          const contentType = incoming.headers['content-type'];
          requests.push({
            method: incoming.method ?? '',
            path: incoming.url ?? '',
            contentType,
            body: body.toString('utf8'),
            status: reply.statusCode ?? 0,
          });
          outgoing.writeHead(reply.statusCode ?? 502, reply.headers);
          reply.pipe(outgoing);
        },
      );
      forwarded.on('error', (error) => {
        outgoing.writeHead(502);
        outgoing.end(error.message);
      });
      forwarded.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
