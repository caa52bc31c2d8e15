// `POST /posture-response` and `/posture-response-bulk` (client): an SDK reports its device's posture
// (ziti `routes/posture_response_router.go`). Both answer 201 with the services whose MFA prompt a wake or
// unlock just started.
import { envelope } from '../http/envelope.js';
import type { OperationContext, OperationHandler, OperationShape, OperationTable } from '../http/operation.js';
import type { SessionCaller } from '../http/request-context.js';
import { parseJsonValue } from '../lib/json-value.js';
import { isJsonObject } from '../lib/object-path.js';
import { promptingMfaChecks } from '../store/queries/posture.js';
import type { Db } from '../store/store.js';
import { NO_TIMEOUT, PROMPT_GRACE_MS } from './mfa-posture.js';
import { postureViewFor } from './posture-inputs.js';
import type { PostureResponse } from './reported-posture.js';

const RESPONSE_TYPES: ReadonlySet<string> = new Set(['OS', 'MAC', 'DOMAIN', 'PROCESS', 'ENDPOINT_STATE']);

/** The contract's discriminator lets only known types through; a base name that parses is ignored, as upstream. */
const isResponse = (value: unknown): value is PostureResponse =>
  isJsonObject(value) && typeof value.typeId === 'string' && RESPONSE_TYPES.has(value.typeId);

interface PromptService {
  id: string;
  name: string;
  postureQueryType: 'MFA';
  timeout: number;
  timeoutRemaining: number;
}

/**
 * After a wake or unlock, the services behind MFA checks that prompt on it and whose timeout leaves more than the
 * grace period (`GetEndpointStateChangeAffectedServices`), each with the lowest such timeout. Upstream lists
 * every such service in the system; this lists only those the caller's service policies give it, so one identity
 * never learns the names of services it cannot see.
 */
async function promptedServices(
  db: Db,
  identityId: string,
  sinceMfaMs: number,
  onWake: boolean,
  onUnlock: boolean,
): Promise<PromptService[]> {
  const byService = new Map<string, PromptService>();
  for (const row of await promptingMfaChecks(db, identityId, onWake, onUnlock)) {
    const details = parseJsonValue(row.details);
    const timeout =
      isJsonObject(details) && typeof details.timeoutSeconds === 'number' ? details.timeoutSeconds : NO_TIMEOUT;
    if (timeout !== NO_TIMEOUT && timeout - Math.trunc(sinceMfaMs / 1000) <= PROMPT_GRACE_MS / 1000) continue;
    const known = byService.get(row.serviceId);
    if (!known || timeout < known.timeout) {
      byService.set(row.serviceId, {
        id: row.serviceId,
        name: row.serviceName,
        postureQueryType: 'MFA',
        timeout,
        timeoutRemaining: PROMPT_GRACE_MS / 1000,
      });
    }
  }
  return [...byService.values()];
}

async function respond(
  { deps, caller }: OperationContext<OperationShape, SessionCaller>,
  given: readonly unknown[],
): Promise<{ status: number; json: unknown }> {
  const { identityId, apiSessionId } = caller.session;
  const responses = given.filter(isResponse);
  await deps.posture.record(identityId, apiSessionId, responses);
  const states = responses.filter((response) => response.typeId === 'ENDPOINT_STATE');
  const onWake = states.some((state) => state.woken === true);
  const onUnlock = states.some((state) => state.unlocked === true);
  const services = await deps.store.read(async (db) => {
    if (!onWake && !onUnlock) return [];
    const now = deps.clock();
    const { mfa } = await postureViewFor(db, deps.posture, identityId, apiSessionId, now);
    // Only an API session that passed MFA has a prompt to restart.
    if (!mfa.isEnrolled || !mfa.passedAt) return [];
    return promptedServices(db, identityId, now.getTime() - mfa.passedAt.getTime(), onWake, onUnlock);
  });
  return { status: 201, json: envelope({ services }) };
}

const createPostureResponse: OperationHandler<'createPostureResponse', 'client'> = {
  access: 'authenticated',
  handle: (context) => respond(context, [context.body]),
};

const createPostureResponseBulk: OperationHandler<'createPostureResponseBulk', 'client'> = {
  access: 'authenticated',
  handle: (context) => respond(context, context.body),
};

export const postureResponseOperations: OperationTable<'client'> = { createPostureResponse, createPostureResponseBulk };
