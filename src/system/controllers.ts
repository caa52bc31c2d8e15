// `GET /controllers` on both APIs: the controllers serving this network. Upstream lists the members of an HA
// cluster (and nothing when stand-alone); here every instance sharing the database, from their heartbeat rows
// (instance-heartbeat.ts), each under its per-process instance id (the `ziti-instance-id` it answers with). The
// rows are a query of their own, so filters, sorting and paging work as on any list.
import { parseJsonValue } from '../lib/json-value.js';
import { isJsonObject } from '../lib/object-path.js';
import type { AppDeps } from '../app-deps.js';
import { listEnvelope } from '../http/envelope.js';
import type { OperationContext, OperationHandler } from '../http/operation.js';
import { listQueryFrom } from '../crud/list-params.js';
import { listInlineRows } from '../store/queries/entities.js';
import { controllerSymbols } from './controller.fields.js';

interface ControllerRow {
  id: string;
  name: string;
  /** The router control channel's address; there is none here. */
  ctrl_address: string | null;
  cert_pem: string;
  fingerprint: string;
  is_online: number;
  last_joined_at: string;
  created_at: string;
  updated_at: string;
  tags: string;
  is_system: number;
  /** `{binding: [{url, version}]}` as JSON. */
  api_addresses: string;
}

/** The instances on this database (this one included), named by `controller.name` (default: the advertised host). */
async function instanceRows(deps: Pick<AppDeps, 'pki' | 'heartbeat'>): Promise<ControllerRow[]> {
  const { pki } = deps;
  return (await deps.heartbeat.instances()).map((instance) => ({
    id: instance.id,
    name: instance.name,
    ctrl_address: null,
    // One server identity for every instance (shared PKI).
    cert_pem: pki.serverCertPem,
    fingerprint: pki.serverCertFingerprint,
    is_online: instance.isOnline ? 1 : 0,
    last_joined_at: instance.started_at,
    created_at: instance.started_at,
    updated_at: instance.last_seen_at,
    tags: '{}',
    is_system: 0,
    api_addresses: JSON.stringify({
      'edge-client': [{ url: `${instance.api_base}/edge/client/v1`, version: 'v1' }],
      'edge-management': [{ url: `${instance.api_base}/edge/management/v1`, version: 'v1' }],
    }),
  }));
}

/** The client API leaves out the control channel address and every API but its own (ziti MapControllerToClientRestModel). */
function toApi(row: ControllerRow, api: OperationContext['api']): Record<string, unknown> {
  const stored = parseJsonValue(row.api_addresses);
  const addresses = isJsonObject(stored) ? stored : {};
  const apiAddresses =
    api === 'management'
      ? addresses
      : Object.fromEntries(Object.entries(addresses).filter(([key]) => key === 'edge-client' || key === 'edge-oidc'));
  return {
    _links: { self: { href: `./controllers/${row.id}` } },
    apiAddresses,
    certPem: row.cert_pem,
    createdAt: row.created_at,
    ...(api === 'management' ? { ctrlAddress: row.ctrl_address } : {}),
    fingerprint: row.fingerprint,
    id: row.id,
    isOnline: row.is_online === 1,
    isSystem: row.is_system === 1,
    lastJoinedAt: row.last_joined_at,
    name: row.name,
    tags: parseJsonValue(row.tags),
    updatedAt: row.updated_at,
  };
}

export const listControllers: OperationHandler = {
  access: 'authenticated',
  async handle(context) {
    const { deps, api } = context;
    const query = listQueryFrom(context, controllerSymbols);
    const rows = await instanceRows(deps);
    const page = await deps.store.read((db) =>
      listInlineRows(
        db,
        rows.map((row) => ({ ...row })),
        query,
      ),
    );
    const pagination = { limit: query.limit, offset: query.offset, totalCount: page.totalCount };
    // The page holds copies of the rows given, filtered and ordered: each is rendered from its original by id.
    const byId = new Map(rows.map((row) => [row.id, row]));
    const data = page.rows.flatMap((row) => {
      const original = byId.get(String(row.id));
      return original ? [toApi(original, api)] : [];
    });
    return { status: 200, json: listEnvelope(data, pagination, Object.keys(controllerSymbols)) };
  },
};
