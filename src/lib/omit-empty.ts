// Go's `json:",omitempty"`: where upstream's REST models mark a field so, a field holding its type's empty value
// (false, 0, "", a nil pointer or interface, an empty slice) is left out, and a client sees no key at all rather
// than `false` or `""`. One helper so that each such model says which of its fields behave so, and nothing more.
import { keysOf } from './collections.js';

/**
 * Whether Go's omitempty leaves the value out. An object is kept, empty or not: JavaScript cannot tell an empty map
 * (left out) from a struct (never left out), so a caller whose map should vanish passes undefined for it.
 */
export function isGoEmpty(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    value === false ||
    value === 0 ||
    value === '' ||
    (Array.isArray(value) && value.length === 0)
  );
}

/** `fields` without those omitempty leaves out, in their order: spread it where the model's fields sit. */
export function omitEmpty<T extends Record<string, unknown>>(fields: T): Partial<T> {
  const kept: Partial<T> = {};
  for (const key of keysOf(fields)) if (!isGoEmpty(fields[key])) kept[key] = fields[key];
  return kept;
}
