// What the fabric counts for operators (system/metrics.ts implements it), shared by circuits and terminators.

/** Why a circuit ended, as counted (a bounded set of metric labels; the log line says more). */
export type CircuitEnd =
  | 'dialling side closed'
  | 'hosting side closed'
  | 'idle'
  | 'service deleted'
  | 'router gone'
  | 'no public key'
  | 'removed by an operator'
  | 'no path left';

/** What operators see counted (system/metrics.ts implements it). */
export interface FabricMetrics {
  circuitCreated(setupSeconds: number): void;
  circuitFailed(cause: string): void;
  circuitEnded(end: CircuitEnd): void;
  terminatorsCreated(count: number): void;
  terminatorsRemoved(count: number): void;
  /** Every series of the controller's registry as it stands (the `metrics` inspection). */
  snapshot(): Promise<MetricSnapshot[]>;
}

/** One metric of the registry, as prom-client's getMetricsAsJSON gives it. */
export interface MetricSnapshot {
  name: string;
  type: string;
  values: { value: number; labels: Partial<Record<string, string | number>>; metricName?: string }[];
}
