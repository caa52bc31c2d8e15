// `/fabric/v1/links`: the routers' links the network holds (deps.network), listed with the filter language
// of every other list, shown as upstream's `api_impl/link_api_model.go` MapLinkToRestModel shows them; an operator's
// static cost and down flag set by PATCH.
import type { OperationContext, OperationHandler, OperationTable } from '../../http/operation.js';
import { emptyEnvelope } from '../../http/envelope.js';
import { ApiError } from '../../errors/api-error.js';
import { emptyNetwork, type LinkSummary } from '../../fabric/network-views.js';
import { networkRefs } from './network-refs.js';
import { networkListAndDetail } from './network-operations.js';
import { linkSymbols } from './link.fields.js';

const linksOf = (context: OperationContext) => (context.deps.network ?? emptyNetwork).links;

/** A link is not a base entity upstream: no `_links`, no timestamps, no tags; keys in Go's (alphabetical) order. */
async function render(context: OperationContext, links: readonly LinkSummary[]): Promise<Record<string, unknown>[]> {
  const routerIds = [...new Set(links.flatMap((link) => [link.sourceRouterId, link.destRouterId]))];
  const refs = await context.deps.store.read((db) => networkRefs(db, routerIds));
  return links.map((link) => ({
    cost: link.cost,
    destLatency: link.destLatency,
    destRouter: refs.router(link.destRouterId),
    down: link.down,
    id: link.id,
    iteration: link.iteration,
    protocol: link.protocol,
    sourceLatency: link.sourceLatency,
    sourceRouter: refs.router(link.sourceRouterId),
    state: link.state,
    staticCost: link.staticCost,
  }));
}

const { list: listLinks, detail: detailLink } = networkListAndDetail<LinkSummary>({
  type: 'link',
  symbols: linkSymbols,
  view: linksOf,
  row: (link) => ({
    id: link.id,
    protocol: link.protocol,
    dial_address: link.dialAddress,
    source_router: link.sourceRouterId,
    dest_router: link.destRouterId,
    cost: link.cost,
    static_cost: link.staticCost,
    dest_latency: link.destLatency,
    source_latency: link.sourceLatency,
    state: link.state,
    iteration: link.iteration,
  }),
  render,
});

/** The largest static cost: upstream keeps it in an int32. */
const MAX_STATIC_COST = 2 ** 31 - 1;

/**
 * `ziti fabric update link <id> --static-cost N | --down`: upstream's LinkRouter.Patch sets the fields the body names
 * (a null one to its zero value, as Go's decoding does) and moves the link's circuits to their best path again.
 */
const patchLink: OperationHandler<'patchLink'> = {
  access: 'admin',
  async handle(context) {
    const { id } = context.params;
    const { body } = context;
    const change: { staticCost?: number; down?: boolean } = {};
    if ('staticCost' in body) {
      const cost = body.staticCost ?? 0;
      // A negative cost would let a longer path look cheaper than a shorter one; refused rather than wrapped.
      if (!Number.isInteger(cost) || cost < 0 || cost > MAX_STATIC_COST)
        throw ApiError.invalidField('staticCost', `must be a whole number from 0 to ${MAX_STATIC_COST}`, cost);
      change.staticCost = cost;
    }
    if ('down' in body) change.down = body.down ?? false;
    const view = linksOf(context);
    if (!view.update || !(await view.update(id, change))) throw ApiError.notFound('link', id);
    return { status: 200, json: emptyEnvelope(context.api) };
  },
};

export const linkOperations: OperationTable<'fabric'> = { listLinks, detailLink, patchLink };
