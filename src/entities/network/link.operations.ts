// `/fabric/v1/links`: the routers' links the network holds (deps.network), listed with the filter language
// of every other list, shown as upstream's `api_impl/link_api_model.go` MapLinkToRestModel shows them.
import type { OperationContext, OperationTable } from '../../http/operation.js';
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

export const linkOperations: OperationTable<'fabric'> = { listLinks, detailLink };
