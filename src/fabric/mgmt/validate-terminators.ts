// `ziti fabric validate terminators` (upstream model/terminator_manager.go ValidateTerminators): the terminators the
// filter selects are asked about, in batches of 50 per router, with ValidateTerminatorsV2Request (1041) to the router
// hosting them (wherever in the cluster its channel is held); each terminator's state goes back to the CLI as a
// TerminatorDetail (10102). With fixInvalid, those the router calls invalid are deleted first. The CLI is told how
// many to expect before any detail goes out.
import { create, fromBinary, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import { goRfc3339 } from '../../lib/go-format.js';
import type { Store } from '../../store/store.js';
import { terminatorsWithNames } from '../../store/queries/terminators.js';
import {
  ContentType as CtrlType,
  TerminatorInvalidReason,
  ValidateTerminatorsV2RequestSchema,
  ValidateTerminatorsV2ResponseSchema,
  type ValidateTerminatorsV2Response,
} from '../messages/gen/ctrl_pb.js';
import { TerminatorState, type TerminatorDetailSchema } from '../messages/gen/mgmt_pb.js';

export type TerminatorDetail = MessageInitShape<typeof TerminatorDetailSchema>;
import type { RouteMessenger } from '../circuits/reroute.js';
import { RouterNotHeldError } from '../ctrl/messenger.js';

export interface TerminatorValidationDeps {
  store: Store;
  messenger: Pick<RouteMessenger, 'request'>;
  /** The ids the filter selects (the REST list's filter language; every match, not a page). */
  selectTerminators(filter: string): Promise<string[]>;
  /** Deletes the router's terminators its answer calls invalid; answers the ids deleted. */
  removeInvalid(routerId: string, response: ValidateTerminatorsV2Response): Promise<string[]>;
}

type Row = Awaited<ReturnType<typeof terminatorsWithNames>>[number];

const BATCH_SIZE = 50;
const VALIDATE_RESPONSE: number = CtrlType.ValidateTerminatorsV2ResponseType;
/** Upstream gives a router a minute to answer a batch. */
const ROUTER_TIMEOUT_MS = 60_000;

/** The terminators to validate, and the work that validates them (to run once the CLI knows their count). */
export async function validateTerminators(
  deps: TerminatorValidationDeps,
  filter: string,
  fixInvalid: boolean,
  report: (detail: TerminatorDetail) => void,
): Promise<{ count: number; run: () => Promise<void> }> {
  const ids = await deps.selectTerminators(filter === '' ? 'true limit none' : filter);
  const rows = await deps.store.read((db) => terminatorsWithNames(db, ids));
  const batches: Row[][] = [];
  const open = new Map<string, Row[]>();
  for (const row of rows) {
    const batch = open.get(row.router_id) ?? [];
    if (batch.length === 0) open.set(row.router_id, batch);
    batch.push(row);
    if (batch.length === BATCH_SIZE) {
      batches.push(batch);
      open.delete(row.router_id);
    }
  }
  batches.push(...open.values());
  const run = async () => {
    await Promise.all(batches.map((batch) => validateBatch(deps, fixInvalid, batch, report)));
  };
  return { count: ids.length, run };
}

async function validateBatch(
  deps: TerminatorValidationDeps,
  fixInvalid: boolean,
  batch: Row[],
  report: (detail: TerminatorDetail) => void,
): Promise<void> {
  const routerId = batch[0]!.router_id;
  const request = create(ValidateTerminatorsV2RequestSchema, {
    fixInvalid,
    terminators: batch.map((row) => ({ id: row.id, binding: row.binding, address: row.address, marker: 0n })),
  });
  let response: ValidateTerminatorsV2Response;
  try {
    const reply = await deps.messenger.request(
      routerId,
      {
        contentType: CtrlType.ValidateTerminatorsV2RequestType,
        headers: new Map(),
        body: toBinary(ValidateTerminatorsV2RequestSchema, request),
      },
      ROUTER_TIMEOUT_MS,
    );
    if (reply.contentType !== VALIDATE_RESPONSE) throw new Error(`unexpected response type ${reply.contentType}`);
    response = fromBinary(ValidateTerminatorsV2ResponseSchema, reply.body);
  } catch (error) {
    const reason =
      error instanceof RouterNotHeldError ? 'router off-line' : error instanceof Error ? error.message : String(error);
    for (const row of batch) report({ ...detailOf(row), state: TerminatorState.Unknown, detail: reason });
    return;
  }
  const invalid = batch.some((row) => response.states[row.id]?.valid === false);
  const fixed = fixInvalid && invalid ? (await deps.removeInvalid(routerId, response)).length > 0 : false;
  for (const row of batch) {
    const status = response.states[row.id];
    if (!status) {
      report({ ...detailOf(row), state: TerminatorState.Unknown, detail: 'no state returned from router' });
      continue;
    }
    report({
      ...detailOf(row),
      state: status.valid ? TerminatorState.Valid : stateOf(status.reason),
      fixed: status.valid ? false : fixed,
      detail: status.detail,
    });
  }
}

function stateOf(reason: TerminatorInvalidReason): TerminatorState {
  if (reason === TerminatorInvalidReason.UnknownBinding) return TerminatorState.InvalidUnknownBinding;
  if (reason === TerminatorInvalidReason.UnknownTerminator) return TerminatorState.InvalidUnknownTerminator;
  if (reason === TerminatorInvalidReason.BadState) return TerminatorState.InvalidBadState;
  return TerminatorState.Unknown;
}

/** newTerminatorDetail: names it cannot find read "unable to retrieve". */
function detailOf(row: Row): TerminatorDetail {
  return {
    terminatorId: row.id,
    serviceId: row.service_id,
    serviceName: row.service_name ?? 'unable to retrieve',
    routerId: row.router_id,
    routerName: row.router_name ?? 'unable to retrieve',
    binding: row.binding,
    address: row.address,
    hostId: row.host_id ?? '',
    createDate: goRfc3339(new Date(row.created_at)),
  };
}
