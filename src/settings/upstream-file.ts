// Upstream's controller settings file (`v: 3`) read as written: `${VAR}` expanded from the environment as upstream
// does (config.InjectEnv), every key a section declares honoured at its own path, the keys whose meaning here sits
// elsewhere moved there (upstream-keys.ts), and every other key listed as ignored, never refused. A new section's
// keys are honoured in an upstream file as soon as the section declares them.
import { isJsonObject, setPath } from '../lib/object-path.js';
import { upstreamKeyMoves } from './upstream-keys.js';

/** Upstream's files carry their format version; ours never have a `v` key. */
export function isUpstreamFile(yaml: Record<string, unknown>): boolean {
  return 'v' in yaml;
}

export interface TranslatedFile {
  /** The settings at this controller's paths. */
  yaml: Record<string, unknown>;
  /** Upstream's keys (dotted paths) without a meaning here. */
  ignored: string[];
}

/**
 * Walks the file's keys: a key path some section declares (`knownPaths`) is kept at that path, whole (a section
 * may take a mapping, as `events` does); a key upstream-keys.ts knows is moved; any other leaf is ignored.
 */
export function translateUpstreamFile(
  file: Record<string, unknown>,
  knownPaths: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): TranslatedFile {
  const yaml: Record<string, unknown> = {};
  const ignored: string[] = [];
  const known = new Set(knownPaths);
  const walk = (node: Record<string, unknown>, prefix: string) => {
    for (const [key, raw] of Object.entries(node)) {
      const path = prefix ? `${prefix}.${key}` : key;
      const value = expandEnv(raw, env);
      const move = upstreamKeyMoves[path];
      if (known.has(path)) setPath(yaml, path, value);
      else if (move) {
        if (!move(value, (to, moved) => setPath(yaml, to, moved))) ignored.push(path);
      } else if (isJsonObject(value) && Object.keys(value).length > 0) walk(value, path);
      else ignored.push(path);
    }
  };
  walk(file, '');
  return { yaml, ignored };
}

/** `${NAME}` in every string of the file, from the environment (an unset variable expands to nothing, as in Go). */
export function expandEnv(value: unknown, env: Readonly<Record<string, string | undefined>>): unknown {
  if (typeof value === 'string')
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? '');
  if (Array.isArray(value)) return value.map((item) => expandEnv(item, env));
  if (isJsonObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandEnv(v, env)]));
  return value;
}
