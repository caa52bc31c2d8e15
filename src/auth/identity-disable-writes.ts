// Disabling and enabling an identity (the rule itself is identity-disable.ts): the writes, recorded as upstream's
// stores record them.
import { formatTimestamp, type Clock } from '../lib/clock.js';
import { disableIdentity, enableIdentity } from '../store/queries/identities.js';
import type { Db } from '../store/store.js';
import { apiSessionsOfIdentity } from '../store/queries/api-sessions.js';
import { recordApiSessionsEnding } from '../events/edge-session-events.js';
import { recordedWrite } from '../crud/recorded-write.js';
import { identity } from '../entities/identity/identity.definition.js';

/**
 * Disables an identity for `minutes` (0: until an admin enables it) inside the caller's transaction, deletes its API
 * sessions and returns their ids, for the caller to forget once the transaction has committed.
 */
export async function disableIdentityIn(
  tx: Db,
  deps: { clock: Clock },
  identityId: string,
  minutes: number,
): Promise<string[]> {
  const now = deps.clock();
  const until = minutes > 0 ? formatTimestamp(new Date(now.getTime() + minutes * 60_000)) : null;
  // upstream's stores record the identity's update and each API session (and its sessions) deleted.
  await recordApiSessionsEnding(tx, await apiSessionsOfIdentity(tx, identityId));
  return recordedWrite(tx, identity, identityId, () => disableIdentity(tx, identityId, formatTimestamp(now), until));
}

export async function enableIdentityIn(tx: Db, deps: { clock: Clock }, identityId: string): Promise<void> {
  await recordedWrite(tx, identity, identityId, () => enableIdentity(tx, identityId, formatTimestamp(deps.clock())));
}
