// Reading values parsed from JSON (stored documents, bodies the contract leaves open) without casting them; objects
// are told by isJsonObject (object-path.ts).

/** `JSON.parse` typed as what it returns before any check: unknown, not any. */
export function parseJsonValue(text: string): unknown {
  return JSON.parse(text);
}

/** A list of strings, or undefined when the value is anything else (an element that is not a string included). */
export function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((element): element is string => typeof element === 'string')
    ? value
    : undefined;
}
