// Upstream's command rate limiter (ziti controller/command/rate_limiter.go): model changes run one at a time from a
// bounded queue, and a change that finds the queue full is refused at once (429) instead of waiting without end.
// Reads never queue here and are never refused.
import { ApiError } from '../errors/api-error.js';
import { wrapTransactions, type Store } from './store.js';

/**
 * The store requests write through. One transaction runs while up to `maxQueued` wait for the connection (upstream's
 * channel of QueueSize plus the one its worker holds); past that, SERVER_TOO_MANY_REQUESTS.
 */
export function queueWrites(store: Store, maxQueued: number): Store {
  let inFlight = 0;
  return wrapTransactions(store, async (run) => {
    if (inFlight > maxQueued) throw new ApiError('SERVER_TOO_MANY_REQUESTS');
    inFlight++;
    try {
      return await run();
    } finally {
      inFlight--;
    }
  });
}
