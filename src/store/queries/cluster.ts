// What the instances on one database share outside the model (migration 016): named secrets (the PKI, the cluster
// id) and one heartbeat row per running instance.
import type { Selectable } from 'kysely';
import { typed } from '../connection.js';
import { preparedQuery } from '../prepared.js';
import type { ControllerInstancesTable } from '../schema.js';
import type { Db } from '../store.js';

export type ControllerInstanceRow = Selectable<ControllerInstancesTable>;

export async function clusterSecrets(db: Db): Promise<Map<string, string>> {
  const rows = await typed(db).selectFrom('cluster_secrets').select(['name', 'value']).execute();
  return new Map(rows.map((row) => [row.name, row.value]));
}

export async function putClusterSecret(tx: Db, name: string, value: string, at: string): Promise<void> {
  await typed(tx)
    .insertInto('cluster_secrets')
    .values({ name, value, updated_at: at })
    .onConflict((conflict) => conflict.column('name').doUpdateSet({ value, updated_at: at }))
    .execute();
}

/** Records that an instance is alive at `at` (inserting its row on its first beat). */
export async function beatControllerInstance(tx: Db, row: ControllerInstanceRow): Promise<void> {
  await typed(tx)
    .insertInto('controller_instances')
    .values(row)
    .onConflict((conflict) =>
      conflict.column('id').doUpdateSet({ last_seen_at: row.last_seen_at, api_base: row.api_base, name: row.name }),
    )
    .execute();
}

const selectLiveInstances = preparedQuery((q, since: string) =>
  q
    .selectFrom('controller_instances')
    .selectAll()
    .where('last_seen_at', '>=', since)
    .orderBy('started_at')
    .orderBy('id'),
);

/** Instances seen since `since`, oldest start first. */
export async function liveControllerInstances(db: Db, since: string): Promise<ControllerInstanceRow[]> {
  return selectLiveInstances(db, since);
}

/** Removes one instance's row (it stopped), if named, and every row not seen since `before` (instances that died). */
export async function removeControllerInstances(tx: Db, id: string | undefined, before: string): Promise<void> {
  await typed(tx)
    .deleteFrom('controller_instances')
    .where((eb) => eb.or([eb('last_seen_at', '<', before), ...(id === undefined ? [] : [eb('id', '=', id)])]))
    .execute();
}
