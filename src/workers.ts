// `workers` > 1: this process becomes a node:cluster primary that starts that many controller processes on this
// machine. They share the listening port (the primary hands each accepted connection to the next worker) and the
// database, through the same protocol as instances on different machines (writes one at a time, each request
// noticing the others' commits, shared PKI); the primary serves nothing itself. SIGTERM or SIGINT stops every worker
// gracefully and exits when all have; a worker that dies after it served is started again.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';

/** Which worker a process is (1 to `workers`), for its name in `GET /controllers`. */
export const WORKER_INDEX_ENV = 'ZITI_WORKER_INDEX';
const RESTART_DELAY_MS = 1000;

export function runPrimary(count: number, logger: Logger, exit: (code: number) => void): void {
  let stopping = false;
  let failed = false;
  const listening = new WeakSet<Worker>();
  const indexOf = new WeakMap<Worker, number>();
  const fork = (index: number) => indexOf.set(cluster.fork({ [WORKER_INDEX_ENV]: String(index) }), index);

  cluster.on('listening', (worker) => listening.add(worker));
  cluster.on('exit', (worker, code, signal) => {
    const index = indexOf.get(worker) ?? 0;
    if (code !== 0) failed = true;
    if (!stopping) {
      if (!listening.has(worker)) {
        // It never served (bad settings, port taken, database unreachable): starting it again would fail again.
        logger.error({ worker: index, code, signal }, 'a worker failed to start: stopping');
        stopAll();
        return;
      }
      logger.error({ worker: index, code, signal }, 'a worker died: starting another');
      setTimeout(() => !stopping && fork(index), RESTART_DELAY_MS).unref();
      return;
    }
    if (Object.keys(cluster.workers ?? {}).length === 0) exit(failed ? 1 : 0);
  });

  const workers = () => Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
  const stopAll = () => {
    stopping = true;
    for (const worker of workers()) worker.process.kill('SIGTERM');
    if (workers().length === 0) exit(1);
  };
  const onSignal = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'stopping every worker at once');
      for (const worker of workers()) worker.process.kill('SIGKILL');
      exit(1);
      return;
    }
    logger.info({ signal, workers: count }, 'stopping every worker');
    stopAll();
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  for (let index = 1; index <= count; index++) fork(index);
}

/** In a worker: its index (1-based), or undefined when this process is a controller on its own. */
export function workerIndex(): number | undefined {
  return cluster.isWorker ? Number(process.env[WORKER_INDEX_ENV]) : undefined;
}

/**
 * In a worker, the primary alone decides when to stop: a terminal's Ctrl-C reaches every process of the group, and
 * the primary's SIGTERM follows it, which would read as a second signal. A worker whose primary is gone stops too.
 */
export function followPrimary(stop: (signal: string) => void): void {
  process.on('SIGINT', () => undefined);
  process.on('disconnect', () => stop('primary gone'));
}
