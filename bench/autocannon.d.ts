// Types for the part of autocannon's API that bench/load-child.ts uses; the package ships none.
declare module 'autocannon' {
  /** One request as autocannon is about to send it. */
  export interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  export interface Options {
    /** Several: connections are spread evenly over them. */
    url: string | string[];
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
    /** Seconds before a request counts as a timeout. */
    timeout?: number;
    warmup?: { connections?: number; duration?: number };
    /** A request sequence each connection repeats; `setupRequest` may rewrite each request before it is sent. */
    requests?: { setupRequest?: (request: RequestParams) => RequestParams }[];
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }

  export interface Result {
    requests: Histogram;
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
    /** The warm-up run's own result, when `warmup` was given. */
    warmup?: Result;
  }

  /** Returns an event emitter that is also thenable. */
  export default function autocannon(options: Options): PromiseLike<Result>;
}
