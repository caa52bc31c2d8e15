// buildApp(deps): the Fastify instance serving the two edge APIs and the fabric API. It never listens; main.ts and tests decide that.
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { AppDeps } from './app-deps.js';
import { bindOperations, type BoundRoute } from './http/bind-operations.js';
import { installBodyLimits } from './http/body-limits.js';
import { installBodyParsers } from './http/body-parsers.js';
import { connectionLimits } from './http/connection-limits.js';
import { installErrorHandler, onFrameworkError } from './http/error-response.js';
import { installNotFound, installRequestHooks } from './http/request-hooks.js';
import { routedUrl } from './http/request-path.js';
import { clientOperations } from './apis/client.js';
import { managementOperations } from './apis/management.js';
import { fabricOperations } from './apis/fabric.js';
import { requestObserver } from './http/request-observer.js';
import { installHealthRoutes } from './system/health-routes.js';
import { alpnProtocols, handOffAlpn } from './http/alpn-handoff.js';
import type { TLSSocket } from 'node:tls';

export interface TlsOptions {
  key: string;
  cert: string;
  /** Takes connections that negotiate ALPN `ziti-ctrl` (the router control plane on the API port). */
  controlPlane?: { protocol: string; accept: (socket: TLSSocket) => void };
}

export async function buildApp(deps: AppDeps, tls?: TlsOptions): Promise<FastifyInstance> {
  const limits = connectionLimits(deps.settings);
  const app = Fastify({
    loggerInstance: deps.logger,
    // Fastify's own request logs are off: the request observer writes one line per request, and errors are logged
    // once, by error-response.ts.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => deps.ids.shortId(),
    // Routes by the path upstream routes by: its prefix rewrites, then path cleaning (request-path.ts).
    rewriteUrl: (request) => routedUrl(request.url ?? '/'),
    // Upstream looks up ids of any length (then answers 404); the URL itself is bounded by the header size limit.
    routerOptions: { maxParamLength: 16 * 1024 },
    frameworkErrors: onFrameworkError,
    // Each operation caps its body by caller (http/body-limits.ts); this backstop is the largest of those caps.
    bodyLimit: deps.settings.authenticatedBodyLimit,
    ...limits.fastifyOptions,
    // Client certificates are requested but verified per request against our CAs, never at the TLS layer:
    // a `ca` list would make Go clients withhold certificates from other issuers.
    ...(tls
      ? {
          https: {
            key: tls.key,
            cert: tls.cert,
            ...limits.tlsServerOptions,
            requestCert: true,
            rejectUnauthorized: false,
            ...(tls.controlPlane ? { ALPNProtocols: alpnProtocols(tls.controlPlane.protocol) } : {}),
          },
        }
      : {}),
    // Fastify's overloads type an HTTPS and an HTTP instance apart; the rest of the app takes either, by the default.
  }) as unknown as FastifyInstance;
  // With a control plane the options above hold `https`, so the server is the HTTPS one.
  const controlPlane = tls?.controlPlane;
  if (controlPlane)
    handOffAlpn(app.server, controlPlane.protocol, (socket) => {
      limits.handedOff(socket);
      controlPlane.accept(socket);
    });
  limits.install(app);

  const routes: BoundRoute[] = [];
  installErrorHandler(app);
  installBodyParsers(app);
  installBodyLimits(app, deps.settings);
  installRequestHooks(app, deps, {
    tracker: limits.requests,
    observe: requestObserver({ accessLog: deps.settings.accessLog, metrics: deps.metrics }),
  });
  installNotFound(app, () => routes);
  routes.push(...bindOperations(app, deps, 'client', clientOperations));
  routes.push(...bindOperations(app, deps, 'management', managementOperations));
  routes.push(...bindOperations(app, deps, 'fabric', fabricOperations));
  installHealthRoutes(app, deps.health);
  await app.ready();
  return app;
}
