// Liveness and readiness for load balancers and orchestrators: `/health` answers while the process serves;
// `/ready` only while the store answers, every migration this build knows is applied and no shutdown has begun.
import { migrations } from '../store/migrations/index.js';
import { appliedMigrations } from '../store/migrations/migrate.js';
import type { Store } from '../store/store.js';

export interface Readiness {
  isReady: boolean;
  body: { status: 'ready' | 'not ready'; checks: Record<string, string> };
}

export class Health {
  #isStopping = false;

  constructor(
    private readonly store: Store,
    /** When this instance started serving (RFC3339): its controller record's join time. */
    readonly startedAt: string,
  ) {}

  /** From the first moment of a shutdown: balancers stop sending new work while requests in flight finish. */
  markStopping(): void {
    this.#isStopping = true;
  }

  async readiness(): Promise<Readiness> {
    // Stopping answers at once: the store may be busy finishing the requests in flight.
    if (this.#isStopping) return { isReady: false, body: { status: 'not ready', checks: { lifecycle: 'stopping' } } };
    const checks: Record<string, string> = { lifecycle: 'serving' };
    let isReady = true;
    try {
      const done = new Set(await this.store.read(appliedMigrations));
      const missing = migrations
        .filter((migration) => !done.has(migration.version))
        .map((migration) => migration.version);
      checks.store = 'ok';
      checks.migrations = missing.length === 0 ? `${migrations.length} applied` : `missing ${missing.join(', ')}`;
      isReady = missing.length === 0;
    } catch (error) {
      checks.store = error instanceof Error ? error.message : String(error);
      isReady = false;
    }
    return { isReady, body: { status: isReady ? 'ready' : 'not ready', checks } };
  }
}
