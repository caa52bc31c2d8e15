// buildApp(deps): the Fastify instance serving both APIs. It never listens; main.ts and tests decide that.
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { AppDeps } from './app-deps.js';
import { bindOperations, sendResult, type BoundRoute } from './http/bind-operations.js';
import { installBodyParsers } from './http/body-parsers.js';
import { installErrorHandler } from './http/error-response.js';
import { installNotFound, installRequestHooks, rewriteUrl } from './http/request-hooks.js';
import { clientOperations } from './apis/client.js';
import { managementOperations } from './apis/management.js';
import { caCertsResult } from './system/well-known.js';
import { installRequestObserver } from './http/request-observer.js';
import { installHealthRoutes } from './system/health-routes.js';

export interface TlsOptions {
  key: string;
  cert: string;
}

export async function buildApp(deps: AppDeps, tls?: TlsOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger,
    // Errors are logged once, by error-response.ts; per-request access logs would cost more than they tell.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => deps.ids.shortId(),
    rewriteUrl,
    bodyLimit: 4 * 1024 * 1024,
    // Client certificates are requested but verified per request against our CAs, never at the TLS layer:
    // a `ca` list would make Go clients withhold certificates from other issuers.
    ...(tls ? { https: { ...tls, requestCert: true, rejectUnauthorized: false } } : {}),
  }) as unknown as FastifyInstance;

  const routes: BoundRoute[] = [];
  installErrorHandler(app);
  installBodyParsers(app);
  installRequestHooks(app, deps);
  installNotFound(app, () => routes);
  installRequestObserver(app, { accessLog: deps.settings.accessLog, metrics: deps.metrics });
  routes.push(...bindOperations(app, deps, 'client', clientOperations));
  routes.push(...bindOperations(app, deps, 'management', managementOperations));
  // The C SDK fetches the CA bundle at the root before it knows any API prefix.
  app.get('/.well-known/est/cacerts', { config: { operationId: 'listWellKnownCas', api: 'client' } }, (_request, reply) => sendResult(reply, caCertsResult(deps)));
  installHealthRoutes(app, deps.health);
  await app.ready();
  return app;
}
