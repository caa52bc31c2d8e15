// One sequence per management entity from a short description: the whole life of one entity (create, read with and
// without a trailing slash, filtered and paged lists, related lists, PUT, PATCH, delete) and the refusal paths every
// entity shares (missing, wrong-typed, duplicate and unparsable bodies; unknown ids; bad list parameters).
import { sequence, type Sequence, type Steps } from '../steps.js';

export type Ids = Record<string, string>;
type Body = Record<string, unknown>;

export interface EntityCase {
  /** The sequence's name, also the prefix of every entity name it creates. */
  name: string;
  /** The collection path (`/services`). */
  path: string;
  /** Creates what the bodies refer to and returns their ids (cleaned up with the sequence). */
  setup?: (s: Steps) => Promise<Ids>;
  create: (ids: Ids) => Body;
  /** A full PUT body; omitted for entities without PUT. */
  update?: (ids: Ids) => Body;
  patch?: (ids: Ids) => Body;
  /** Sub-lists under `/path/{id}/…`. */
  related?: string[];
  /** Further create bodies that must be refused, each labelled. */
  invalid?: (ids: Ids) => Body[];
  /** Runs after the PATCH and before the delete, for what only this entity does. */
  more?: (s: Steps, id: string, ids: Ids) => Promise<void>;
}

export function crud(entity: EntityCase): Sequence {
  return sequence(entity.name, async (s) => {
    const ids = (await entity.setup?.(s)) ?? {};
    const { path } = entity;
    await s.get(path);
    const created = entity.create(ids);
    const id = await s.create(entity.name, path, created);
    await s.post(path, { body: created });
    await s.get(`${path}/${id}`);
    await s.get(`${path}/${id}/`);
    await listQueries(s, path, typeof created.name === 'string' ? created.name : undefined);
    for (const related of entity.related ?? []) await s.get(`${path}/${id}/${related}`);
    if (entity.update) {
      await s.put(`${path}/${id}`, { body: entity.update(ids) });
      await s.get(`${path}/${id}`);
    }
    if (entity.patch) {
      await s.patch(`${path}/${id}`, { body: entity.patch(ids) });
      await s.get(`${path}/${id}`);
    }
    await entity.more?.(s, id, ids);
    await refusals(s, entity, ids, created);
    await s.delete(`${path}/${id}`);
    await s.get(`${path}/${id}`);
    await s.delete(`${path}/${id}`);
  });
}

async function listQueries(s: Steps, path: string, name: string | undefined): Promise<void> {
  if (name !== undefined) await s.get(`${path}?filter=${encodeURIComponent(`name = "${name}"`)}`);
  await s.get(
    `${path}?filter=${encodeURIComponent('(name contains "")')}&sort=${encodeURIComponent('name desc')}&limit=1&offset=0`,
  );
  await s.get(`${path}?limit=-1`);
  await s.get(`${path}?limit=0`);
  await s.get(`${path}?limit=501`);
  await s.get(`${path}?offset=-1`);
  await s.get(`${path}?offset=1000`);
  await s.get(`${path}?limit=ten`);
  await s.get(`${path}?filter=${encodeURIComponent('name = ')}`);
  await s.get(`${path}?filter=${encodeURIComponent('noSuchField = "x"')}`);
  await s.get(`${path}?sort=${encodeURIComponent('noSuchField asc')}`);
}

async function refusals(s: Steps, entity: EntityCase, ids: Ids, created: Body): Promise<void> {
  const { path } = entity;
  await s.post(path, { body: {} });
  await s.post(path, { body: { ...created, name: 7 } });
  await s.post(path, { body: '{"name": ' });
  await s.post(path, { body: '[]' });
  for (const body of entity.invalid?.(ids) ?? []) await s.post(path, { body });
  await s.get(`${path}/no-such-id`);
  if (entity.update) await s.put(`${path}/no-such-id`, { body: entity.update(ids) });
  if (entity.patch) await s.patch(`${path}/no-such-id`, { body: entity.patch(ids) });
  await s.delete(`${path}/no-such-id`);
}
