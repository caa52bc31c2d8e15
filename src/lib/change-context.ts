// Who is making the changes of the work running now, and through what (upstream's change.Context: author and
// source), carried along the asynchronous work of one request so that what records a change need not be handed it
// through every layer.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface ChangeAuthor {
  /** upstream change.AuthorType: `identity`, `router`, `controller`, `cert`, `unattributed`. */
  type: string;
  id?: string;
  name?: string;
}

export interface ChangeSource {
  /** `rest`, `ctrl.channel`, `websocket`, or a background task's name (upstream SourceType). */
  type: string;
  auth?: string;
  localAddr?: string;
  remoteAddr?: string;
  method?: string;
}

export interface ChangeContext {
  author: ChangeAuthor;
  source: ChangeSource;
  traceId?: string;
}

const current = new AsyncLocalStorage<ChangeContext>();

/** Runs `work` with `context` as the author and source of the changes it makes. */
export function withChangeContext<T>(context: ChangeContext, work: () => T): T {
  return current.run(context, work);
}

/** The change context of the work running now; a change made outside any is the controller's own. */
export function currentChangeContext(): ChangeContext {
  return current.getStore() ?? { author: { type: 'controller' }, source: { type: 'controller' } };
}
