// What a client says about itself when it logs in (envInfo, sdkInfo), kept on its identity. Written only when it
// changed, as upstream's authenticate route does (routes/authenticate_router.go: Equals, then UpdateSdkInfo), and
// recorded as an update of the identity: upstream's identity store emits it, with the identity as author.
import { recordedWrite } from '../crud/recorded-write.js';
import { identity } from '../entities/identity/identity.definition.js';
import { currentChangeContext, type ChangeContext } from '../lib/change-context.js';
import { parseJsonValue } from '../lib/json-value.js';
import { identityClientInfo, recordClientInfo } from '../store/queries/identities.js';
import type { Db } from '../store/store.js';

/** As stored: JSON text each, null when none was sent. */
interface StoredClientInfo {
  envInfo: string | null;
  sdkInfo: string | null;
}

/** JSON text each; an absent one stays as it was. */
export interface ClientInfo {
  envInfo?: string;
  sdkInfo?: string;
}

/**
 * `context`: who made it, when not the identity itself over the running request (a router for its own identity).
 * `stored`: what the identity holds now, when the caller read it already in the same transaction (a login).
 */
export async function updateClientInfo(
  tx: Db,
  identityId: string,
  info: ClientInfo,
  at: string,
  context: ChangeContext = { ...currentChangeContext(), author: { type: 'identity', id: identityId } },
  stored?: StoredClientInfo,
): Promise<void> {
  if (info.envInfo === undefined && info.sdkInfo === undefined) return;
  stored ??= await identityClientInfo(tx, identityId);
  if (!stored) return;
  const changed: ClientInfo = {
    ...(info.envInfo !== undefined && info.envInfo !== stored.envInfo ? { envInfo: info.envInfo } : {}),
    ...(info.sdkInfo !== undefined && info.sdkInfo !== stored.sdkInfo ? { sdkInfo: info.sdkInfo } : {}),
  };
  if (changed.envInfo === undefined && changed.sdkInfo === undefined) return;
  await recordedWrite(tx, identity, identityId, () => recordClientInfo(tx, identityId, changed, at), {
    context,
    // The identity's fields leave the client info out (it is no field of the REST entity); upstream's state has it.
    extra: async (db, id) => {
      const current = await identityClientInfo(db, id);
      return { envInfo: parsed(current?.envInfo), sdkInfo: parsed(current?.sdkInfo) };
    },
  });
}

const parsed = (text: string | null | undefined): unknown => (text ? parseJsonValue(text) : null);
