// The circuits' filter symbols: where each filterable field is found in a circuit's row.
import type { SymbolTable } from '../../store/filter/filter-types.js';

/** Upstream's circuit store symbols (`model/circuit.go` NewCircuitController); `updatedAt` reads createdAt there. */
export const circuitSymbols: SymbolTable = {
  id: { kind: 'column', type: 'string', column: 'id' },
  clientId: { kind: 'column', type: 'string', column: 'client_id' },
  service: { kind: 'column', type: 'string', column: 'service' },
  terminator: { kind: 'column', type: 'string', column: 'terminator' },
  createdAt: { kind: 'column', type: 'datetime', column: 'created_at' },
  updatedAt: { kind: 'column', type: 'datetime', column: 'created_at' },
};
