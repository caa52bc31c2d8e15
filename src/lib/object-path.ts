// Reads and writes values at dotted paths (`primary.updb.allowed`) in plain objects.

export function getPath(source: unknown, path: string): unknown {
  let node = source;
  for (const part of path.split('.')) {
    if (!isObjectLike(node)) return undefined;
    node = node[part];
  }
  return node;
}

export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  const last = parts.pop() ?? '';
  let node = target;
  for (const part of parts) {
    const existing = node[part];
    const child: Record<string, unknown> = isObjectLike(existing) ? existing : {};
    node[part] = child;
    node = child;
  }
  node[last] = value;
}

/** Anything with properties to read by name (an array's too, by index). */
const isObjectLike = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** A JSON object (what Go decodes into map[string]interface{}): not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
