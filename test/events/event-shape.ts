// The shape of an event as the interop run and the fixture test compare it: its kind (namespace and event type, or
// metric type), and its fields with the JSON type of each value, nested objects spelled out where their keys are
// fixed (a circuit's path, an entity change's metadata author and source) and left as `object` where they are data
// (tags, counts, metrics, entity states).

/** `fabric.circuits created`, `metrics histogram`, `edge.entityCounts`, `fabric.usage v3`. */
export function eventKind(event: Record<string, unknown>): string {
  const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');
  const namespace = text(event.namespace);
  const type = text(event.event_type ?? event.eventType ?? event.metric_type);
  if (namespace === 'fabric.usage') return `${namespace} v${text(event.version)}`;
  return type === '' ? namespace : `${namespace} ${type}`;
}

const FIXED_OBJECTS = new Set(['path', 'metadata', 'author', 'source']);

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** `{a:string,b:{c:number}}` with keys sorted. */
export function shapeOf(value: unknown, key = ''): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return typeOf(value);
  if (key !== '' && !FIXED_OBJECTS.has(key)) return 'object';
  const fields = Object.entries(value)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, inner]) => `${name}:${shapeOf(inner, name)}`);
  return `{${fields.join(',')}}`;
}
