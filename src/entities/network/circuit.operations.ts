// `/fabric/v1/circuits`: the circuits the network holds (deps.network), listed with the filter language of every
// other list, shown as upstream's `api_impl/circuit_api_model.go` MapCircuitToRestModel shows them.
import type { OperationContext, OperationHandler, OperationTable } from '../../http/operation.js';
import { emptyEnvelope } from '../../http/envelope.js';
import { ApiError } from '../../errors/api-error.js';
import { formatTimestamp } from '../../lib/clock.js';
import { named, namesOf } from '../../store/queries/references.js';
import { emptyNetwork, type CircuitSummary } from '../../fabric/network-views.js';
import { networkRefs, type NetworkRefs } from './network-refs.js';
import { networkListAndDetail } from './network-operations.js';
import { circuitSymbols } from './circuit.fields.js';
import { omitEmpty } from '../../lib/omit-empty.js';

const circuitsOf = (context: OperationContext) => (context.deps.network ?? emptyNetwork).circuits;

function toApi(circuit: CircuitSummary, refs: NetworkRefs, serviceNames: Map<string, string>): Record<string, unknown> {
  const self = `./circuits/${circuit.id}`;
  const serviceName = serviceNames.get(circuit.serviceId);
  return {
    _links: { self: { href: self }, service: { href: `${self}/service` }, terminator: { href: `${self}/terminator` } },
    createdAt: formatTimestamp(circuit.createdAt),
    id: circuit.id,
    tags: { ...circuit.tags },
    updatedAt: formatTimestamp(circuit.updatedAt),
    ...omitEmpty({ clientId: circuit.clientId }),
    // Nil slices upstream when empty, written null.
    path: {
      links: circuit.path.linkIds.length > 0 ? circuit.path.linkIds.map((id) => refs.link(id)) : null,
      nodes: circuit.path.routerIds.length > 0 ? circuit.path.routerIds.map((id) => refs.router(id)) : null,
    },
    // A circuit outlives its service's deletion; upstream names it `<deleted>` then.
    service: refs.service(circuit.serviceId, serviceName ?? '<deleted>'),
    terminator: refs.terminator(circuit.terminatorId),
  };
}

async function render(
  context: OperationContext,
  circuits: readonly CircuitSummary[],
): Promise<Record<string, unknown>[]> {
  const serviceIds = [...new Set(circuits.map((c) => c.serviceId))];
  const routerIds = [...new Set(circuits.flatMap((c) => c.path.routerIds))];
  const [serviceNames, refs] = await context.deps.store.read(
    async (db) => [await namesOf(db, named.service, serviceIds), await networkRefs(db, routerIds)] as const,
  );
  return circuits.map((circuit) => toApi(circuit, refs, serviceNames));
}

const { list: listCircuits, detail: detailCircuit } = networkListAndDetail<CircuitSummary>({
  type: 'circuit',
  symbols: circuitSymbols,
  view: circuitsOf,
  row: (c) => ({
    id: c.id,
    client_id: c.clientId,
    service: c.serviceId,
    terminator: c.terminatorId,
    created_at: formatTimestamp(c.createdAt),
  }),
  render,
});

/** `ziti fabric delete circuit` sends `{"immediate": bool}`; upstream's body is optional. */
const deleteCircuit: OperationHandler<'deleteCircuit'> = {
  access: 'admin',
  async handle(context) {
    const { id } = context.params;
    const immediate = context.body?.immediate === true;
    if (!(await circuitsOf(context).remove(id, immediate))) throw ApiError.notFound('circuit', id);
    return { status: 200, json: emptyEnvelope(context.api) };
  },
};

export const circuitOperations: OperationTable<'fabric'> = { listCircuits, detailCircuit, deleteCircuit };
