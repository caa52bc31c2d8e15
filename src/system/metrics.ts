// Prometheus metrics (prom-client), one registry per controller: requests per operation, logins per method,
// rate-limit refusals, store transaction times, open connections and API sessions, plus the process defaults.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { wrapTransactions, type Store } from '../store/store.js';

/** Seconds; requests here take from tens of microseconds (cached reads) to seconds (large policy changes). */
const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What the metrics read when scraped rather than counting as they go. */
export interface MetricSources {
  openConnections(): Promise<number>;
  apiSessions(): Promise<number>;
}

export class Metrics {
  readonly registry = new Registry();
  readonly #requests = new Counter({
    name: 'ziti_http_requests_total',
    help: 'Requests answered, by API, operation id (none: outside the contract), method and status',
    labelNames: ['api', 'operation', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly #requestSeconds = new Histogram({
    name: 'ziti_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its reply, by API and operation id',
    labelNames: ['api', 'operation'] as const,
    buckets: latencyBuckets,
    registers: [this.registry],
  });
  readonly #authentications = new Counter({
    name: 'ziti_authentications_total',
    help: 'Authentication attempts by method and result (success, failure)',
    labelNames: ['method', 'result'] as const,
    registers: [this.registry],
  });
  readonly #rateLimited = new Counter({
    name: 'ziti_rate_limited_requests_total',
    help: 'Requests refused with 429 (write queue full, a scan or snapshot too soon), by operation id',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });
  readonly #transactionSeconds = new Histogram({
    name: 'ziti_store_transaction_duration_seconds',
    help: 'Time write transactions take, waiting for the connection included',
    buckets: latencyBuckets,
    registers: [this.registry],
  });

  constructor(sources: MetricSources) {
    collectDefaultMetrics({ register: this.registry, prefix: 'ziti_' });
    new Gauge({
      name: 'ziti_http_open_connections',
      help: 'Client connections open on the API listener',
      registers: [this.registry],
      async collect() {
        this.set(await sources.openConnections());
      },
    });
    new Gauge({
      name: 'ziti_api_sessions',
      help: 'API sessions in the store',
      registers: [this.registry],
      async collect() {
        this.set(await sources.apiSessions());
      },
    });
  }

  request(api: string, operation: string, method: string, status: number, seconds: number): void {
    this.#requests.labels(api, operation, method, String(status)).inc();
    this.#requestSeconds.labels(api, operation).observe(seconds);
    if (status === 429) this.#rateLimited.labels(operation).inc();
  }

  authentication(method: string, isSuccess: boolean): void {
    this.#authentications.labels(method, isSuccess ? 'success' : 'failure').inc();
  }

  /** The store with every transaction timed. */
  timed(store: Store): Store {
    return wrapTransactions(store, async (run) => {
      const end = this.#transactionSeconds.startTimer();
      try {
        return await run();
      } finally {
        end();
      }
    });
  }
}
