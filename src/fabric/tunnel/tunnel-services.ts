// ListServicesRequest (20404) → ServiceList (20405), as upstream v1.1.8 answers it (controller/handler_edge_ctrl/
// list_tunnel_services.go): the services the router's identity may dial or bind, each with its permissions and its
// configs of the API session's config types, sent as a message of its own (not a reply) and only when the list changed
// since the token the router sent back.
import { create, toBinary } from '@bufbuild/protobuf';
import { expandConfigs, sessionConfigTypes } from '../../policy/config-expansion.js';
import { permissionsOf } from '../../policy/service-access.js';
import { mustGet } from '../../lib/collections.js';
import { serviceListChangedAt } from '../../store/queries/service-lists.js';
import { tunnelServices } from '../../store/queries/tunnel.js';
import type { Db } from '../../store/store.js';
import { ContentType as EdgeType, ServicesListSchema, TunnelServiceSchema } from '../messages/gen/edge_ctrl_pb.js';
import type { Outgoing } from '../ctrl/router-channel.js';
import { decodeGoTime, encodeGoTime } from './go-time.js';

/** Upstream closes the channel of a router whose token is longer than this. */
export const MAX_LAST_UPDATE_TOKEN = 50;

const encoder = new TextEncoder();

/**
 * The list, or nothing when the router's token (`lastUpdate`, ms; undefined: none or unreadable) is not older than
 * the identity's service list (its last change, or its API session's start: service-lists.ts serviceListChangedAt).
 */
export async function serviceListFor(
  db: Db,
  identityId: string,
  apiSessionId: string,
  lastUpdate: number | undefined,
): Promise<Outgoing | undefined> {
  const changedAt = await serviceListChangedAt(db, apiSessionId);
  if (changedAt === undefined) return undefined;
  const changedMs = Date.parse(changedAt);
  if (lastUpdate !== undefined && lastUpdate >= changedMs) return undefined;
  const rows = await tunnelServices(db, identityId);
  const ids = rows.map((row) => row.id);
  const configs = await expandConfigs(db, identityId, ids, await sessionConfigTypes(db, apiSessionId));
  const list = create(ServicesListSchema, {
    lastUpdate: encodeGoTime(changedMs),
    services: rows.map((row) =>
      create(TunnelServiceSchema, {
        id: row.id,
        name: row.name,
        permissions: [...permissionsOf(row)],
        encryption: Number(row.encryption_required) === 1,
        config: encoder.encode(JSON.stringify(mustGet(configs, row.id))),
        tags: encoder.encode(row.tags || '{}'),
      }),
    ),
  });
  return { contentType: EdgeType.ServiceListType, headers: new Map(), body: toBinary(ServicesListSchema, list) };
}

/** The token of a ListServicesRequest body; upstream logs and ignores one it cannot read (all is sent). */
export function readLastUpdate(body: Uint8Array): number | undefined {
  return body.length === 0 ? undefined : decodeGoTime(body);
}
