// The links' filter symbols: where each filterable field is found in a link's row.
import type { SymbolTable } from '../../store/filter/filter-types.js';

/** Upstream's link store symbols (`model/link_manager.go` NewLinkManager). */
export const linkSymbols: SymbolTable = {
  id: { kind: 'column', type: 'string', column: 'id' },
  protocol: { kind: 'column', type: 'string', column: 'protocol' },
  dialAddress: { kind: 'column', type: 'string', column: 'dial_address' },
  sourceRouter: { kind: 'column', type: 'string', column: 'source_router' },
  destRouter: { kind: 'column', type: 'string', column: 'dest_router' },
  cost: { kind: 'column', type: 'number', column: 'cost' },
  staticCost: { kind: 'column', type: 'number', column: 'static_cost' },
  destLatency: { kind: 'column', type: 'number', column: 'dest_latency' },
  sourceLatency: { kind: 'column', type: 'number', column: 'source_latency' },
  state: { kind: 'column', type: 'string', column: 'state' },
  iteration: { kind: 'column', type: 'number', column: 'iteration' },
};
