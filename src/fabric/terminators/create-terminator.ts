// CreateTerminatorV2 (20216 → 20217) as upstream v1.1.8 decides it (controller/handler_edge_ctrl/
// create_terminator_v2.go, model/create_terminator_cmd.go): a hosting SDK's Bind session becomes an edge terminator
// on the router it bound through, with the id the router chose. A terminator already there with that id is reused
// (its cost and precedence brought up to date) when it is the same binding, service, router and host.
import { formatTimestamp } from '../../lib/clock.js';
import { isUniqueViolation, type Store } from '../../store/store.js';
import {
  insertTerminator,
  setTerminatorCostAndPrecedence,
  terminatorById,
  terminatorsWithInstance,
  type TerminatorRow,
} from '../../store/queries/terminators.js';
import {
  CreateTerminatorResult,
  TerminatorPrecedence,
  type CreateTerminatorV2Request,
} from '../messages/gen/edge_ctrl_pb.js';
import { checkSessionRequest, EdgeErrorCode, EdgeRequestError, type CheckedSession } from '../edge-requests.js';
import { isJsonObject } from '../../lib/object-path.js';
import { recordTerminatorChanges } from '../../events/terminator-events.js';

export const EDGE_BINDING = 'edge';
const MAX_COST = 65535;

export interface CreateTerminatorOutcome {
  result: CreateTerminatorResult;
  /** Upstream's words for a refusal; empty on success. */
  message: string;
  terminatorId: string;
  /** The terminator made or reused, on success. */
  terminator?: TerminatorRow;
  created: boolean;
  checked?: CheckedSession;
}

/** GetXtPrecedence: anything but Required and Failed is default. */
export function precedenceName(precedence: TerminatorPrecedence): string {
  if (precedence === TerminatorPrecedence.Required) return 'required';
  if (precedence === TerminatorPrecedence.Failed) return 'failed';
  return 'default';
}

/** Peer data as stored: JSON of key → base64. */
export function encodePeerData(
  peerData: Readonly<Record<number, Uint8Array>> | ReadonlyMap<number, Uint8Array>,
): string | null {
  const entries = peerData instanceof Map ? [...peerData] : Object.entries(peerData);
  if (entries.length === 0) return null;
  return JSON.stringify(
    Object.fromEntries(entries.map(([key, value]) => [String(key), Buffer.from(value).toString('base64')])),
  );
}

export function decodePeerData(stored: string | null): Map<number, Uint8Array> {
  if (!stored) return new Map();
  const parsed: unknown = JSON.parse(stored);
  if (!isJsonObject(parsed)) return new Map();
  return new Map(
    Object.entries(parsed).map(([key, value]) => [Number(key), new Uint8Array(Buffer.from(String(value), 'base64'))]),
  );
}

const refuse = (
  request: CreateTerminatorV2Request,
  result: CreateTerminatorResult,
  message: string,
  checked?: CheckedSession,
): CreateTerminatorOutcome => ({
  result,
  message,
  terminatorId: request.address,
  created: false,
  ...(checked ? { checked } : {}),
});

/** Decides and applies one request from the router `routerId` (which the caller knows exists). */
export async function createEdgeTerminator(
  store: Store,
  routerId: string,
  request: CreateTerminatorV2Request,
  now: Date,
): Promise<CreateTerminatorOutcome> {
  const at = formatTimestamp(now);
  let checked: CheckedSession;
  try {
    if (request.address === '')
      throw new EdgeRequestError('provided terminator id is blank', EdgeErrorCode.invalidTerminator);
    checked = await store.read((db) =>
      checkSessionRequest(db, {
        routerId,
        sessionToken: request.sessionToken,
        fingerprints: request.fingerprints,
        type: 'Bind',
        at,
      }),
    );
  } catch (error) {
    if (!(error instanceof EdgeRequestError)) throw error;
    const result =
      error.code === EdgeErrorCode.invalidSession
        ? CreateTerminatorResult.FailedInvalidSession
        : CreateTerminatorResult.FailedOther;
    return refuse(request, result, error.message);
  }
  if (request.cost > MAX_COST) {
    return refuse(
      request,
      CreateTerminatorResult.FailedOther,
      `invalid cost ${request.cost}. cost must be between 0 and ${MAX_COST} inclusive`,
      checked,
    );
  }
  const { session } = checked;
  const placed = await placeTerminator(
    store,
    {
      ...request,
      routerId,
      serviceId: session.serviceId,
      hostId: session.identityId,
      binding: EDGE_BINDING,
    },
    at,
  );
  if (placed.conflict !== undefined)
    return refuse(request, CreateTerminatorResult.FailedIdConflict, placed.conflict, checked);
  if (placed.refusal !== undefined) return refuse(request, CreateTerminatorResult.FailedOther, placed.refusal, checked);
  return {
    result: CreateTerminatorResult.Success,
    message: '',
    terminatorId: placed.terminator.id,
    terminator: placed.terminator,
    created: placed.created,
    checked,
  };
}

/** A terminator a host asks for, checked: an SDK's through its router (edge) or a router's own tunneler (tunnel). */
export interface TerminatorPlacement {
  routerId: string;
  serviceId: string;
  hostId: string;
  binding: string;
  /** The id the router chose, also the terminator's address. */
  address: string;
  instanceId: string;
  instanceSecret: Uint8Array;
  cost: number;
  precedence: TerminatorPrecedence;
  peerData: Readonly<Record<number, Uint8Array>> | ReadonlyMap<number, Uint8Array>;
}

/** The terminator made or reused; or why not: an id held by another (conflict), or another refusal. */
export type Placed =
  | { terminator: TerminatorRow; created: boolean; conflict?: undefined; refusal?: undefined }
  | { terminator?: undefined; conflict: string; refusal?: undefined }
  | { terminator?: undefined; conflict?: undefined; refusal: string };

/**
 * Creates the terminator, or reuses one with its id (cost and precedence brought up to date) when it is the same
 * binding, service, router and host (model/create_terminator_cmd.go and the handlers' validateExistingTerminator).
 */
export async function placeTerminator(store: Store, placement: TerminatorPlacement, at: string): Promise<Placed> {
  const { address, serviceId, hostId, routerId, binding, cost } = placement;
  const precedence = precedenceName(placement.precedence);
  const conflict = (existing: TerminatorRow): string | undefined => {
    if (existing.binding !== binding) return 'selected id conflicts with terminator for different binding';
    if (existing.service_id !== serviceId) return 'selected id conflicts with terminator for different service';
    if (existing.router_id !== routerId) return 'selected id conflicts with terminator for different router';
    if (existing.host_id !== hostId) return 'selected id conflicts with terminator for different identity';
    return undefined;
  };
  const row: TerminatorRow = {
    id: address,
    created_at: at,
    updated_at: at,
    tags: '{}',
    is_system: 1,
    service_id: serviceId,
    router_id: routerId,
    binding,
    address,
    instance_id: placement.instanceId,
    instance_secret:
      placement.instanceSecret.length > 0 ? Buffer.from(placement.instanceSecret).toString('base64') : null,
    cost,
    precedence,
    host_id: hostId,
    peer_data: encodePeerData(placement.peerData),
    saved_precedence: null,
  };
  try {
    return await store.transaction(async (tx): Promise<Placed> => {
      const existing = await terminatorById(tx, address);
      if (existing) {
        const why = conflict(existing);
        if (why) return { conflict: why };
        if (existing.cost !== cost || existing.precedence !== precedence) {
          await setTerminatorCostAndPrecedence(tx, existing.id, cost, precedence, at);
        }
        return { terminator: { ...existing, cost, precedence }, created: false };
      }
      // Terminators sharing an instance id must all be hosted by one identity (validateTerminatorIdentity).
      if (placement.instanceId !== '') {
        const other = (await terminatorsWithInstance(tx, serviceId, placement.instanceId, address)).find(
          (sibling) => sibling.host_id !== hostId,
        );
        if (other) {
          return {
            refusal: `sibling terminator ${other.id} with shared identity ${placement.instanceId} belongs to different identity`,
          };
        }
      }
      await insertTerminator(tx, row);
      await recordTerminatorChanges(tx, 'created', [row], routerId);
      return { terminator: row, created: true };
    });
  } catch (error) {
    // Made by a concurrent request between our read and our write: judged as one found (upstream re-reads).
    if (!isUniqueViolation(store, error, 'terminatorId')) throw error;
    const existing = await store.read((db) => terminatorById(db, address));
    if (!existing) return { refusal: 'terminator could not be created' };
    const why = conflict(existing);
    return why ? { conflict: why } : { terminator: existing, created: false };
  }
}
