// Events as upstream writes them: Go's json.Marshal (controller/events/formatter.go MarshalJson), byte for byte.
// JSON.stringify writes the same text for what both can hold except that Go escapes <, > and & (\u003c, \u003e,
// \u0026) and the line and paragraph separators (\u2028, \u2029) for HTML safety, writes a map's keys sorted, and
// holds no lone surrogate: where ours holds one (a JSON body's "\ud800"), upstream's decoder made it U+FFFD, which
// Marshal writes as it is.

/** The fields whose values are Go maps in upstream's events (tags, counts, metric values, usage, change metadata). */
const GO_MAPS = new Set(['tags', 'counts', 'metrics', 'usage', 'metadata']);

const ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

function sortMaps(key: string, value: unknown): unknown {
  if (!GO_MAPS.has(key) || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const entries = Object.entries(value);
  for (let index = 1; index < entries.length; index++)
    if (entries[index - 1]![0] > entries[index]![0])
      // Go sorts by the keys' bytes; for the ASCII keys these maps hold, code-unit order is the same.
      return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1)));
  return value;
}

/** `value` as Go's json.Marshal writes it (an event's line, a stream's message body). */
export function goJsonText(value: unknown): string {
  let text = JSON.stringify(value, sortMaps);
  // These characters only ever stand inside strings in JSON text, so replacing them everywhere is exact.
  text = text.replace(/[<>&\u2028\u2029]/g, (character) => ESCAPES[character]!);
  // JSON.stringify escapes exactly the lone surrogates (\udXXX after an even run of backslashes).
  if (text.includes('\\ud')) text = text.replace(/(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g, '$1\ufffd');
  return text;
}
