// `GET /health` and `GET /ready` on the API listener (and, through readinessReply, on the metrics listener).
import type { FastifyInstance } from 'fastify';
import type { Health } from './health.js';

export interface PlainReply {
  status: number;
  body: string;
}

export const livenessReply = (): PlainReply => ({ status: 200, body: '{"status":"alive"}\n' });

export async function readinessReply(health: Health): Promise<PlainReply> {
  const { isReady, body } = await health.readiness();
  return { status: isReady ? 200 : 503, body: `${JSON.stringify(body)}\n` };
}

export function installHealthRoutes(app: FastifyInstance, health: Health): void {
  const send = (reply: import('fastify').FastifyReply, { status, body }: PlainReply) =>
    reply
      .status(status)
      .header('content-type', 'application/json')
      .header('cache-control', 'no-store')
      .send(Buffer.from(body));
  app.get('/health', { config: { operationId: 'health' } }, (_request, reply) => send(reply, livenessReply()));
  app.get('/ready', { config: { operationId: 'ready' } }, async (_request, reply) =>
    send(reply, await readinessReply(health)),
  );
}
