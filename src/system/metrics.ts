// Prometheus metrics (prom-client), one registry per controller: requests and latency per operation, logins per
// method, rate-limit refusals, store transaction times, open connections and API sessions, plus the process
// defaults. Per-request figures are kept as plain numbers per route and handed to prom-client when scraped:
// labelling a prom-client metric on every request costs more than the rest of a cached read's work.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import { wrapTransactions, type Store } from '../store/store.js';
import type { CircuitEnd, FabricMetrics, MetricSnapshot } from '../fabric/ctrl/fabric-metrics.js';

/** Seconds; requests here take from tens of microseconds (cached reads) to seconds (large policy changes). */
const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What the metrics read when scraped rather than counting as they go. */
export interface MetricSources {
  openConnections(): Promise<number>;
  apiSessions(): Promise<number>;
  /** Circuits this process holds (in memory, as upstream's). */
  circuits?: () => number;
  /** Terminators in the store. */
  terminators?: () => Promise<number>;
}

/** Circuit setup takes a route round trip to the router: milliseconds to the route timeout (10 s). */
const circuitSetupBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One route's requests (API, operation, method): counts per status and a latency histogram. */
class RouteStats {
  readonly byStatus = new Map<number, number>();
  /** Requests per bucket (not cumulative); slower than the last bound counts only in `count`. */
  readonly buckets: number[] = latencyBuckets.map(() => 0);
  sum = 0;
  count = 0;

  constructor(readonly labels: Readonly<{ api: string; operation: string; method: string }>) {}

  observe(status: number, seconds: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    // The first bucket whose bound the latency is within (none: only +Inf counts it).
    const bucket = latencyBuckets.findIndex((le) => seconds <= le);
    if (bucket >= 0) this.buckets[bucket] = (this.buckets[bucket] ?? 0) + 1;
    this.sum += seconds;
    this.count++;
  }
}

export class Metrics implements FabricMetrics {
  readonly registry = new Registry();
  readonly #routes = new Map<string, RouteStats>();
  readonly #authentications = new Counter({
    name: 'ziti_authentications_total',
    help: 'Authentication attempts by method and result (success, failure)',
    labelNames: ['method', 'result'] as const,
    registers: [this.registry],
  });
  readonly #transactionSeconds = new Histogram({
    name: 'ziti_store_transaction_duration_seconds',
    help: 'Time write transactions take, waiting for the connection included',
    buckets: latencyBuckets,
    registers: [this.registry],
  });

  readonly #circuitSetupSeconds = new Histogram({
    name: 'ziti_circuit_setup_duration_seconds',
    help: 'Time from a router asking for a circuit to the circuit routed, for circuits created',
    buckets: circuitSetupBuckets,
    registers: [this.registry],
  });
  readonly #circuitFailures = new Counter({
    name: 'ziti_circuit_failures_total',
    help: 'Dials refused or not routed, by cause (SESSION_REFUSED, NO_TERMINATORS, ROUTER_RESPONSE_TIMEOUT, ROUTER_ERR_*, ...)',
    labelNames: ['cause'] as const,
    registers: [this.registry],
  });
  readonly #circuitsEnded = new Counter({
    name: 'ziti_circuits_ended_total',
    help: 'Circuits ended, by why (dialling or hosting side closed, idle, service deleted, router gone, no public key)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly #terminatorChanges = new Counter({
    name: 'ziti_router_terminator_changes_total',
    help: 'Terminators routers created and removed (CreateTerminatorV2, RemoveTerminators, invalid on dial)',
    labelNames: ['change'] as const,
    registers: [this.registry],
  });

  constructor(sources: MetricSources) {
    collectDefaultMetrics({ register: this.registry, prefix: 'ziti_' });
    new Gauge({
      name: 'ziti_circuits',
      help: 'Circuits this controller process routed and holds',
      registers: [this.registry],
      collect() {
        this.set(sources.circuits?.() ?? 0);
      },
    });
    new Gauge({
      name: 'ziti_terminators',
      help: 'Terminators in the store',
      registers: [this.registry],
      async collect() {
        this.set((await sources.terminators?.()) ?? 0);
      },
    });
    const routes = this.#routes;
    new Counter({
      name: 'ziti_http_requests_total',
      help: 'Requests answered, by API, operation id (none: outside the contract), method and status',
      labelNames: ['api', 'operation', 'method', 'status'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const route of routes.values())
          for (const [status, count] of route.byStatus) this.inc({ ...route.labels, status: String(status) }, count);
      },
    });
    new Counter({
      name: 'ziti_rate_limited_requests_total',
      help: 'Requests refused with 429 (write queue full, a scan or snapshot too soon), by operation id',
      labelNames: ['operation'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const route of routes.values()) {
          const refused = route.byStatus.get(429);
          if (refused) this.inc({ operation: route.labels.operation }, refused);
        }
      },
    });
    this.registry.registerMetric(requestHistogram(routes));
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
    const key = `${api} ${operation} ${method}`;
    let route = this.#routes.get(key);
    if (!route) this.#routes.set(key, (route = new RouteStats({ api, operation, method })));
    route.observe(status, seconds);
  }

  authentication(method: string, isSuccess: boolean): void {
    this.#authentications.labels(method, isSuccess ? 'success' : 'failure').inc();
  }

  circuitCreated(setupSeconds: number): void {
    this.#circuitSetupSeconds.observe(setupSeconds);
  }

  circuitFailed(cause: string): void {
    this.#circuitFailures.labels(cause).inc();
  }

  circuitEnded(end: CircuitEnd): void {
    this.#circuitsEnded.labels(end).inc();
  }

  terminatorsCreated(count: number): void {
    this.#terminatorChanges.labels('created').inc(count);
  }

  terminatorsRemoved(count: number): void {
    this.#terminatorChanges.labels('removed').inc(count);
  }

  async snapshot(): Promise<MetricSnapshot[]> {
    // prom-client types `type` as a numeric enum; at run time it is the name ('counter', 'histogram', …).
    return (await this.registry.getMetricsAsJSON()).map((metric) => ({
      name: metric.name,
      type: String(metric.type),
      values: metric.values,
    }));
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

/**
 * The request latency histogram, exported from the route stats when scraped. prom-client's own Histogram takes
 * observations only, so this is a metric in the shape its registry formats (what `Histogram.get()` returns).
 */
function requestHistogram(routes: ReadonlyMap<string, RouteStats>): Metric {
  const name = 'ziti_http_request_duration_seconds';
  const help = 'Time from receiving a request to sending its reply, by API and operation id';
  const byOperation = () => {
    const merged = new Map<
      string,
      { labels: { api: string; operation: string }; buckets: number[]; sum: number; count: number }
    >();
    for (const route of routes.values()) {
      const labels = { api: route.labels.api, operation: route.labels.operation };
      const key = `${labels.api} ${labels.operation}`;
      const entry = merged.get(key) ?? { labels, buckets: latencyBuckets.map(() => 0), sum: 0, count: 0 };
      route.buckets.forEach((n, index) => (entry.buckets[index] = (entry.buckets[index] ?? 0) + n));
      entry.sum += route.sum;
      entry.count += route.count;
      merged.set(key, entry);
    }
    return [...merged.values()];
  };
  const get = () => ({
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    values: byOperation().flatMap(({ labels, buckets, sum, count }) => {
      let cumulative = 0;
      return [
        ...latencyBuckets.map((le, index) => ({
          metricName: `${name}_bucket`,
          labels: { ...labels, le },
          value: (cumulative += buckets[index] ?? 0),
        })),
        { metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: count },
        { metricName: `${name}_sum`, labels, value: sum },
        { metricName: `${name}_count`, labels, value: count },
      ];
    }),
  });
  // prom-client's Metric is a class with private members; the registry reads only these (name, help, type, get).
  return { name, help, type: 'histogram', aggregator: 'sum', get, reset: () => undefined } as unknown as Metric;
}
