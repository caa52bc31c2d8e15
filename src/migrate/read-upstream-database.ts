// Reads an upstream v1.1.8 ctrl.db into the rows of this controller's tables, in an order their references allow.
// Derived data (indexes, policy links, denormalised sets) is left behind: the import recomputes it.
/* eslint-disable storage/no-storage-words -- the strings here are upstream's bucket names (its entity types, controller/db/stores.go), several of which our tables share; none names a table of ours */
import { BoltFile, type BoltBucket } from './bbolt/bbolt-file.js';
import { decodeField } from './bbolt/boltz-values.js';
import { storedEntities, type StoredEntity } from './bbolt/stored-entity.js';
import type { ImportedKind, ImportedRow } from '../store/queries/upstream-import.js';
import { kindRows, type Dropped, type KindRows } from './rows/base-row.js';
import { authenticatorRow, enrollmentRow, identityRow, mfaRow, serviceConfigRows } from './rows/identity-rows.js';
import { configRow, configTypeRow, routerRow, serviceRow, terminatorRow } from './rows/network-rows.js';
import {
  authPolicyRow,
  caRow,
  edgeRouterPolicyRow,
  externalJwtSignerRow,
  postureCheckRow,
  serviceEdgeRouterPolicyRow,
  servicePolicyRow,
} from './rows/policy-rows.js';

/** `ziti/versions/edge` of a v1.1.8 database (controller/db/migrations.go CurrentDbVersion). */
export const SUPPORTED_SCHEMA_VERSION = 36;

export class UpstreamDatabaseError extends Error {}

export interface UpstreamData {
  schemaVersion: number;
  /** Rows per table, in insertion order. */
  tables: KindRows[];
  /** What could not be carried over, with counts. */
  dropped: Dropped;
  /** Upstream entities seen per bucket, whether imported or not. */
  seen: Map<string, number>;
}

type Mapper<K extends ImportedKind> = (
  entity: StoredEntity,
  importedAt: string,
  dropped: Dropped,
) => ImportedRow<K> | undefined;

interface BucketImport {
  bucket: string;
  read: (entities: Iterable<StoredEntity>, importedAt: string, dropped: Dropped) => KindRows;
}

/** Upstream bucket → the kind of row it becomes, in an order that satisfies the tables' references. */
const imports: BucketImport[] = [
  entry('externalJwtSigners', 'externalJwtSigner', externalJwtSignerRow),
  entry('authPolicies', 'authPolicy', authPolicyRow),
  entry('configTypes', 'configType', configTypeRow),
  entry('configs', 'config', configRow),
  entry('cas', 'ca', caRow),
  entry('identities', 'identity', identityRow),
  entry('authenticators', 'authenticator', authenticatorRow),
  entry('mfas', 'mfa', mfaRow),
  entry('routers', 'router', routerRow),
  entry('enrollments', 'enrollment', enrollmentRow),
  entry('services', 'service', serviceRow),
  entry('terminators', 'terminator', terminatorRow),
  entry('postureChecks', 'postureCheck', postureCheckRow),
  entry('servicePolicies', 'servicePolicy', servicePolicyRow),
  entry('edgeRouterPolicies', 'edgeRouterPolicy', edgeRouterPolicyRow),
  entry('serviceEdgeRouterPolicies', 'serviceEdgeRouterPolicy', serviceEdgeRouterPolicyRow),
];

function entry<K extends ImportedKind>(bucket: string, kind: K, map: Mapper<K>): BucketImport {
  return {
    bucket,
    read(entities, importedAt, dropped) {
      const rows: ImportedRow<K>[] = [];
      for (const entity of entities) {
        const row = map(entity, importedAt, dropped);
        if (row) rows.push(row);
      }
      return kindRows(kind, rows);
    },
  };
}

/**
 * Buckets known and deliberately not imported, and why (docs/moving-from-upstream.md); those whose rows are
 * reported as not carried over say so with `isReported`, the rest are derived, internal or the same here.
 */
export const notImported: Record<string, { reason: string; isReported: boolean }> = {
  apiSessions: { reason: 'clients log in again', isReported: true },
  apiSessionCertificates: { reason: 'made again at the next login', isReported: true },
  sessions: { reason: 'clients create them again', isReported: true },
  revocations: { reason: 'JWT revocations of sessions not carried over', isReported: true },
  controllers: { reason: 'HA (raft) controllers: one database serves instances here', isReported: true },
  identityTypes: { reason: 'system rows, the same here', isReported: false },
  postureCheckTypes: { reason: 'system rows, the same here', isReported: false },
  eventualEvents: { reason: "upstream's internal deferred work", isReported: false },
  indexes: { reason: 'derived', isReported: false },
  metadata: { reason: 'upstream internal', isReported: false },
  versions: { reason: 'checked, not imported', isReported: false },
};

export function readUpstreamDatabase(path: string, importedAt: string): UpstreamData {
  const root = BoltFile.read(path).root();
  const ziti = root.bucket('ziti');
  if (!ziti) throw new UpstreamDatabaseError(`${path} has no "ziti" bucket: not an upstream controller database`);
  const schemaVersion = readSchemaVersion(ziti, path);
  const dropped: Dropped = new Map();
  const seen = new Map<string, number>();
  const tables = imports.map(({ bucket, read }) => {
    const entities = [...storedEntities(ziti, bucket)];
    seen.set(bucket, entities.length);
    return read(entities, importedAt, dropped);
  });
  tables.push(kindRows('serviceConfigOverride', overrides(ziti)));
  for (const entry of ziti.entries()) {
    const name = entry.key.toString('utf8');
    if (!seen.has(name) && !(name in notImported)) dropped.set(`unknown bucket ziti/${name}`, 1);
  }
  for (const [name, { reason, isReported }] of Object.entries(notImported)) {
    const count = isReported ? [...storedEntitiesIfAny(ziti, name)].length : 0;
    if (count > 0) dropped.set(`${name} (${reason})`, count);
  }
  return { schemaVersion, tables, dropped, seen };
}

function overrides(ziti: BoltBucket): ImportedRow<'serviceConfigOverride'>[] {
  return [...storedEntities(ziti, 'identities')].flatMap(serviceConfigRows);
}

function* storedEntitiesIfAny(ziti: BoltBucket, name: string): Generator<unknown> {
  const bucket = ziti.bucket(name);
  if (bucket) yield* bucket.entries();
}

function readSchemaVersion(ziti: BoltBucket, path: string): number {
  const stored = ziti.bucket('versions')?.get('edge');
  const version = stored === undefined ? undefined : decodeField(stored, 'versions/edge');
  if (typeof version !== 'number')
    throw new UpstreamDatabaseError(`${path} has no schema version (ziti/versions/edge): not an upstream database`);
  if (version < SUPPORTED_SCHEMA_VERSION)
    throw new UpstreamDatabaseError(
      `${path} has schema version ${version}; run upstream v1.1.8 on it once (it migrates to ${SUPPORTED_SCHEMA_VERSION}), stop it, then import`,
    );
  if (version > SUPPORTED_SCHEMA_VERSION)
    throw new UpstreamDatabaseError(
      `${path} has schema version ${version}, newer than v1.1.8's ${SUPPORTED_SCHEMA_VERSION}: this controller does not know what changed`,
    );
  return version;
}
