// Lookups whose key the caller has proven present (a map built from the same ids, an index inside the bounds): a
// missing one is a bug in the caller, so it throws a clear error instead of reading on with `undefined`. The maps and
// lists these are used on never hold `undefined` itself.

/** The value under a key the map is known to hold. */
export function mustGet<K, V>(map: ReadonlyMap<K, V>, key: K): V {
  const value = map.get(key);
  if (value === undefined) throw new Error(`no entry for ${String(key)}`);
  return value;
}

/** The element at an index known to be inside the list (negative counts from the end, as `Array.at`). */
export function mustAt<T>(list: readonly T[], index: number): T {
  const value = list.at(index);
  if (value === undefined) throw new Error(`no element at ${index} of a list of ${list.length}`);
  return value;
}

/** The keys of an object that has only its declared ones (a constant table, a literal): Object.keys widens them to string. */
export function keysOf<T extends object>(record: T): Array<Extract<keyof T, string>> {
  return Object.keys(record) as Array<Extract<keyof T, string>>; // such an object has exactly its declared keys
}

/** Drops the entry inserted first (a Map iterates in insertion order): the eviction of a bounded memo. */
export function deleteOldest<K>(map: Map<K, unknown>): void {
  for (const key of map.keys()) {
    map.delete(key);
    return;
  }
}

/** The value under `key`, made and kept by `make` the first time (a memo for one request's repeated lookups). */
export function getOrAdd<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  const found = map.get(key);
  if (found !== undefined) return found;
  const made = make();
  map.set(key, made);
  return made;
}
