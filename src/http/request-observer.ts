// After every reply: the access-log line and the request metrics. Only ids, the operation, the status and
// the time are recorded — never headers, query strings or bodies, where tokens, passwords, CSRs and keys travel.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isJsonObject } from '../lib/object-path.js';

/** What the observer records into (system/metrics.ts); kept as an interface so HTTP knows no metrics library. */
export interface RequestMetrics {
  request(api: string, operation: string, method: string, status: number, seconds: number): void;
  authentication(method: string, isSuccess: boolean): void;
}

export interface RequestObserverOptions {
  accessLog: boolean;
  metrics: RequestMetrics | undefined;
}

/** Login methods counted by name; anything else is counted as `other`, so a caller cannot mint label values. */
const authMethods = new Set(['password', 'cert', 'ext-jwt']);

/** What to do once each reply has gone (request-hooks.ts runs it); undefined when nothing is recorded. */
export function requestObserver({
  accessLog,
  metrics,
}: RequestObserverOptions): ((request: FastifyRequest, reply: FastifyReply) => void) | undefined {
  if (!accessLog && !metrics) return undefined;
  return (request, reply) => {
    const spec = request.routeOptions.config.operation;
    const operation = spec?.operationId ?? 'none';
    const status = reply.statusCode;
    const ms = reply.elapsedTime;
    if (accessLog) {
      const identityId = request.caller?.session?.identityId;
      const line = { method: request.method, operation, status, ms: Math.round(ms * 1000) / 1000, identityId };
      // Outside the contract the path says what was asked; without its query string, which may carry a token.
      if (operation === 'none')
        request.log.info({ ...line, path: request.url.split('?', 1)[0]!.slice(0, 200) }, 'request');
      else request.log.info(line, 'request');
    }
    if (metrics) {
      metrics.request(spec?.api ?? 'none', operation, request.method, status, ms / 1000);
      const login = loginMethod(operation, request);
      if (login) metrics.authentication(login, status === 200);
    }
  };
}

function loginMethod(operation: string, request: FastifyRequest): string | undefined {
  if (operation === 'authenticateMfa') return 'mfa';
  if (operation !== 'authenticate') return undefined;
  const method = isJsonObject(request.query) ? request.query.method : undefined;
  return typeof method === 'string' && authMethods.has(method) ? method : 'other';
}
