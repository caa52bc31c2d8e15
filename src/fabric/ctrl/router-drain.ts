// Drain and decommission, asked by the router itself (`ziti agent router quiesce|dequiesce|decommission` talk to its
// agent socket; it sends QuiesceRouterRequest 1039, DequiesceRouterRequest 1040, DecommissionRouterRequest 1043), as
// upstream's handler_ctrl quiesce_router.go, dequiesce_router.go and decommission.go handle them: quiesce fails the
// router's terminators (each keeps its precedence to come back to) so new circuits go elsewhere while open ones
// finish; dequiesce restores them; decommission deletes the router, which closes its channel (no answer on success).
import { formatTimestamp, type Clock } from '../../lib/clock.js';
import { dequiesceRouterTerminators, quiesceRouterTerminators } from '../../store/queries/terminators.js';
import type { Store } from '../../store/store.js';
import { resultMessage, type FabricLogger, type Outgoing } from './router-channel.js';

export interface RouterDrainOptions {
  store: Store;
  clock: Clock;
  logger: FabricLogger;
  /** Deletes the router as `DELETE /edge-routers/{id}` (or `/transit-routers/{id}`) does, with every rule of it. */
  removeRouter: (routerId: string) => Promise<void>;
}

export class RouterDrain {
  readonly #options: RouterDrainOptions;

  constructor(options: RouterDrainOptions) {
    this.#options = options;
  }

  async quiesce(routerId: string): Promise<Outgoing> {
    const { store, clock, logger } = this.#options;
    const at = formatTimestamp(clock());
    const terminators = await store.transaction((tx) => quiesceRouterTerminators(tx, routerId, at));
    logger.info({ routerId, terminators }, 'router quiesced: its terminators fail until it is dequiesced');
    return resultMessage(true, 'router quiesced');
  }

  async dequiesce(routerId: string): Promise<Outgoing> {
    const { store, clock, logger } = this.#options;
    const at = formatTimestamp(clock());
    const terminators = await store.transaction((tx) => dequiesceRouterTerminators(tx, routerId, at));
    logger.info({ routerId, terminators }, 'router dequiesced: its terminators have their precedence back');
    return resultMessage(true, 'router dequiesced');
  }

  async decommission(routerId: string): Promise<void> {
    await this.#options.removeRouter(routerId);
    this.#options.logger.info({ routerId }, 'router decommissioned: deleted at its own request');
  }
}
