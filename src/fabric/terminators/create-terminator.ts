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
  const precedence = precedenceName(request.precedence);
  const conflict = (existing: TerminatorRow): string | undefined => {
    if (existing.binding !== EDGE_BINDING) return 'selected id conflicts with terminator for different binding';
    if (existing.service_id !== session.serviceId) return 'selected id conflicts with terminator for different service';
    if (existing.router_id !== routerId) return 'selected id conflicts with terminator for different router';
    if (existing.host_id !== session.identityId) return 'selected id conflicts with terminator for different identity';
    return undefined;
  };
  const row: TerminatorRow = {
    id: request.address,
    created_at: at,
    updated_at: at,
    tags: '{}',
    is_system: 1,
    service_id: session.serviceId,
    router_id: routerId,
    binding: EDGE_BINDING,
    address: request.address,
    instance_id: request.instanceId,
    instance_secret: request.instanceSecret.length > 0 ? Buffer.from(request.instanceSecret).toString('base64') : null,
    cost: request.cost,
    precedence,
    host_id: session.identityId,
    peer_data: encodePeerData(request.peerData),
    saved_precedence: null,
  };
  try {
    return await store.transaction(async (tx) => {
      const existing = await terminatorById(tx, request.address);
      if (existing) {
        const why = conflict(existing);
        if (why) return refuse(request, CreateTerminatorResult.FailedIdConflict, why, checked);
        if (existing.cost !== request.cost || existing.precedence !== precedence) {
          await setTerminatorCostAndPrecedence(tx, existing.id, request.cost, precedence, at);
        }
        return {
          result: CreateTerminatorResult.Success,
          message: '',
          terminatorId: existing.id,
          terminator: { ...existing, cost: request.cost, precedence },
          created: false,
          checked,
        };
      }
      // Terminators sharing an instance id must all be hosted by one identity (validateTerminatorIdentity).
      if (request.instanceId !== '') {
        const other = (await terminatorsWithInstance(tx, session.serviceId, request.instanceId, request.address)).find(
          (sibling) => sibling.host_id !== session.identityId,
        );
        if (other) {
          return refuse(
            request,
            CreateTerminatorResult.FailedOther,
            `sibling terminator ${other.id} with shared identity ${request.instanceId} belongs to different identity`,
            checked,
          );
        }
      }
      await insertTerminator(tx, row);
      await recordTerminatorChanges(tx, 'created', [row], routerId);
      return {
        result: CreateTerminatorResult.Success,
        message: '',
        terminatorId: row.id,
        terminator: row,
        created: true,
        checked,
      };
    });
  } catch (error) {
    // Made by a concurrent request between our read and our write: judged as one found (upstream re-reads).
    if (!isUniqueViolation(store, error, 'terminatorId')) throw error;
    const existing = await store.read((db) => terminatorById(db, request.address));
    const why = existing ? conflict(existing) : 'terminator could not be created';
    if (why)
      return refuse(
        request,
        existing ? CreateTerminatorResult.FailedIdConflict : CreateTerminatorResult.FailedOther,
        why,
        checked,
      );
    return {
      result: CreateTerminatorResult.Success,
      message: '',
      terminatorId: existing!.id,
      terminator: existing!,
      created: false,
      checked,
    };
  }
}
