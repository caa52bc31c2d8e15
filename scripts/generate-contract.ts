// Builds the project's own copy of the API contract: the upstream Swagger documents without prose, plus the 0.26.23
// additions and the reviewed corrections, written to src/http/spec/edge-{client,management}.json and fabric.json.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { operationTypesSource } from './operation-types.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
type ApiName = 'client' | 'management' | 'fabric';

const apis: ApiName[] = ['client', 'management', 'fabric'];
const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const specDir = path.join(repoRoot, 'src/http/spec');
export const upstreamDir = path.resolve(repoRoot, '../shared/openapi');

/** Keys that only carry prose or code-generation hints, dropped wherever a schema or operation can hold them. */
const proseKeys = new Set([
  'description',
  'summary',
  'example',
  'examples',
  'title',
  'x-omitempty',
  'x-omit-empty',
  'externalDocs',
]);
/** Maps keyed by names (a property may be called `description`): their keys are data, their values are walked. */
const nameMaps = new Set([
  'properties',
  'definitions',
  'paths',
  'responses',
  'securityDefinitions',
  'headers',
  'parameters',
]);
/** Values copied as they are. */
const opaqueKeys = new Set(['enum', 'default', 'required', 'scopes', 'x-class', 'discriminator']);

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stripProse(value: Json, key = ''): Json {
  if (Array.isArray(value)) return value.map((item) => stripProse(item));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (nameMaps.has(key)) out[k] = stripProse(v);
    else if (proseKeys.has(k)) continue;
    else out[k] = opaqueKeys.has(k) ? v : stripProse(v, k);
  }
  return out;
}

/** The info block keeps what identifies the document (Swagger 2.0 requires both); the rest is prose. */
function stripDocument(source: Json): JsonObject {
  if (!isObject(source) || !isObject(source.info)) throw new Error('not a Swagger document');
  const doc = stripProse(source) as JsonObject;
  doc.info = { title: source.info.title ?? '', version: source.info.version ?? '' };
  return doc;
}

interface OperationRef {
  method: string;
  path: string;
  operation: JsonObject;
}

function operationsOf(doc: JsonObject): OperationRef[] {
  const paths = doc.paths;
  if (!isObject(paths)) throw new Error('document has no paths');
  return Object.entries(paths).flatMap(([p, item]) =>
    isObject(item)
      ? Object.entries(item)
          .filter(([m, op]) => methods.includes(m) && isObject(op))
          .map(([m, op]) => ({ method: m.toUpperCase(), path: p, operation: op as JsonObject }))
      : [],
  );
}

function sortKeys(object: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

interface Additions {
  /** info.version of both documents. */
  version: string;
  management: {
    paths: JsonObject;
    /** Operations whose `ztSession` security gains the `oauth2: [openid]` alternative. */
    oauth2Alternative: string[];
  };
}

function applyAdditions(doc: JsonObject, api: ApiName, additions: Additions): void {
  if (api === 'fabric') return;
  (doc.info as JsonObject).version = additions.version;
  if (api !== 'management') return;
  const paths = doc.paths as JsonObject;
  for (const [p, item] of Object.entries(additions.management.paths)) {
    if (p in paths) throw new Error(`addition ${p} already exists upstream`);
    paths[p] = structuredClone(item);
  }
  doc.paths = sortKeys(paths);
  const byId = new Map(operationsOf(doc).map((ref) => [ref.operation.operationId, ref.operation]));
  for (const id of additions.management.oauth2Alternative) {
    const op = byId.get(id);
    if (!op) throw new Error(`oauth2 addition names unknown operation ${id}`);
    if (JSON.stringify(op.security) !== '[{"ztSession":[]}]') throw new Error(`${id} security is not ztSession-only`);
    op.security = [{ ztSession: [] }, { oauth2: ['openid'] }];
  }
}

/** Operations this controller serves beyond upstream's contract (extensions.yml): new paths and definitions only. */
interface Extensions {
  management: { paths: JsonObject; definitions: JsonObject };
}

function applyExtensions(doc: JsonObject, api: ApiName, extensions: Extensions): void {
  if (api !== 'management') return;
  const paths = doc.paths as JsonObject;
  const definitions = doc.definitions as JsonObject;
  for (const [p, item] of Object.entries(extensions.management.paths)) {
    if (p in paths) throw new Error(`extension ${p} collides with an upstream path`);
    paths[p] = structuredClone(item);
  }
  for (const [name, schema] of Object.entries(extensions.management.definitions)) {
    if (name in definitions) throw new Error(`extension definition ${name} collides with an upstream one`);
    definitions[name] = structuredClone(schema);
  }
  doc.paths = sortKeys(paths);
  doc.definitions = sortKeys(definitions);
}

interface Correction {
  /** `both` names the two edge APIs; a list names each API it applies to. */
  api: ApiName | 'both' | ApiName[];
  /** An operationId, a list of them, `METHOD /path`, `*` (every operation) or `definitions`. */
  op: string | string[];
  target: string;
  action: 'set' | 'remove' | 'merge';
  value?: Json;
  reason: string;
}

function pointerParts(pointer: string): string[] {
  if (!pointer.startsWith('/')) throw new Error(`bad JSON pointer ${pointer}`);
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function applyAt(root: JsonObject, correction: Correction, where: string): void {
  const parts = pointerParts(correction.target);
  const last = parts.pop()!;
  let parent: Json | undefined = root;
  for (const part of parts)
    parent = Array.isArray(parent) ? parent[Number(part)] : isObject(parent) ? parent[part] : undefined;
  const fail = (why: string) => new Error(`correction ${where} ${correction.target}: ${why} (${correction.reason})`);
  if (!isObject(parent)) throw fail('parent not found');
  const current = parent[last];
  const same = JSON.stringify(current) === JSON.stringify(correction.value);
  if (correction.action === 'set') {
    if (same) throw fail('already holds that value upstream');
    parent[last] = structuredClone(correction.value ?? null);
  } else if (correction.action === 'merge') {
    if (!isObject(current) || !isObject(correction.value ?? null)) throw fail('merge needs two objects');
    parent[last] = { ...current, ...structuredClone(correction.value as JsonObject) };
  } else if (correction.value !== undefined) {
    if (!Array.isArray(current)) throw fail('remove with a value needs an array');
    const index = current.findIndex((item) => JSON.stringify(item) === JSON.stringify(correction.value));
    if (index < 0) throw fail(`${JSON.stringify(correction.value)} is no longer there`);
    current.splice(index, 1);
  } else {
    if (current === undefined) throw fail('nothing to remove');
    delete parent[last];
  }
}

function applyCorrection(doc: JsonObject, correction: Correction): void {
  if (correction.op === 'definitions') {
    applyAt(doc.definitions as JsonObject, correction, 'definitions');
    return;
  }
  const refs = operationsOf(doc);
  const selected =
    correction.op === '*'
      ? refs
      : (Array.isArray(correction.op) ? correction.op : [correction.op]).map((id) => {
          const ref = refs.find((r) => r.operation.operationId === id || `${r.method} ${r.path}` === id);
          if (!ref) throw new Error(`correction names unknown operation ${id} (${correction.reason})`);
          return ref;
        });
  for (const ref of selected) applyAt(ref.operation, correction, `${ref.method} ${ref.path}`);
}

/** Fails on defects the corrections file should have covered, so a new upstream version cannot slip them in. */
function checkDocument(doc: JsonObject, api: ApiName): void {
  const seen = new Set<string>();
  for (const { method, path: p, operation } of operationsOf(doc)) {
    if (typeof operation.operationId !== 'string') throw new Error(`${api} ${method} ${p} has no operationId`);
    if (seen.has(operation.operationId)) throw new Error(`${api} duplicate operationId ${operation.operationId}`);
    seen.add(operation.operationId);
  }
  const definitions = doc.definitions as JsonObject;
  const propertiesOf = (schema: Json | undefined, visited: Set<string>): Set<string> => {
    const names = new Set<string>();
    if (!isObject(schema)) return names;
    if (typeof schema.$ref === 'string') {
      const name = schema.$ref.replace('#/definitions/', '');
      if (visited.has(name)) return names;
      return propertiesOf(definitions[name], new Set([...visited, name]));
    }
    if (isObject(schema.properties)) Object.keys(schema.properties).forEach((n) => names.add(n));
    if (Array.isArray(schema.allOf))
      schema.allOf.forEach((part) => propertiesOf(part, visited).forEach((n) => names.add(n)));
    return names;
  };
  const walk = (schema: Json | undefined, where: string, whole: Set<string> | undefined): void => {
    if (!isObject(schema)) return;
    const own = whole ?? propertiesOf(schema, new Set());
    if (Array.isArray(schema.required) && (schema.properties || schema.allOf || whole)) {
      const missing = schema.required.filter((name): name is string => typeof name === 'string' && !own.has(name));
      if (missing.length) throw new Error(`${api} ${where} requires undefined ${missing.join(', ')}`);
    }
    if (isObject(schema.properties))
      Object.entries(schema.properties).forEach(([n, s]) => walk(s, `${where}.${n}`, undefined));
    if (Array.isArray(schema.allOf)) schema.allOf.forEach((part, i) => walk(part, `${where}/allOf/${i}`, own));
    for (const key of ['items', 'additionalProperties'] as const) walk(schema[key], `${where}/${key}`, undefined);
  };
  for (const [name, schema] of Object.entries(definitions)) walk(schema, name, undefined);
}

/**
 * The fabric document shares parameters and responses through `#/parameters/…` and `#/responses/…`; the edge
 * documents spell every one out. Inlining them gives the server one shape to read.
 */
function inlineSharedRefs(doc: JsonObject): void {
  const shared = { '#/parameters/': doc.parameters, '#/responses/': doc.responses };
  const resolve = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(resolve);
    if (!isObject(value)) return value;
    const ref = value.$ref;
    if (typeof ref === 'string') {
      for (const [prefix, table] of Object.entries(shared)) {
        if (!ref.startsWith(prefix)) continue;
        const target = isObject(table) ? table[ref.slice(prefix.length)] : undefined;
        if (target === undefined) throw new Error(`unresolved ${ref}`);
        return resolve(structuredClone(target));
      }
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
  };
  doc.paths = resolve(doc.paths ?? {});
  delete doc.parameters;
  delete doc.responses;
}

function readYaml(file: string): Json {
  return parseYaml(readFileSync(file, 'utf8')) as Json;
}

/** The two documents as they are committed, from the upstream YAML files and the two committed edit files. */
export function buildContractDocuments(sourceDir = upstreamDir, editsDir = specDir): Record<ApiName, string> {
  const additions = readYaml(path.join(editsDir, 'additions-0.26.23.yml')) as unknown as Additions;
  const corrections = (readYaml(path.join(editsDir, 'corrections.yml')) as unknown as { corrections: Correction[] })
    .corrections;
  const extensions = readYaml(path.join(editsDir, 'extensions.yml')) as unknown as Extensions;
  const out = {} as Record<ApiName, string>;
  for (const api of apis) {
    const doc = stripDocument(readYaml(path.join(sourceDir, `${api}.yml`)));
    inlineSharedRefs(doc);
    applyAdditions(doc, api, additions);
    applyExtensions(doc, api, extensions);
    for (const correction of corrections) {
      const applies = Array.isArray(correction.api)
        ? correction.api.includes(api)
        : correction.api === api || (correction.api === 'both' && api !== 'fabric');
      if (applies) applyCorrection(doc, correction);
    }
    checkDocument(doc, api);
    out[api] = `${JSON.stringify(doc, null, 1)}\n`;
  }
  return out;
}

export const outputFiles: Record<ApiName, string> = {
  client: 'edge-client.json',
  management: 'edge-management.json',
  fabric: 'fabric.json',
};
/** The per-operation types handlers are written against (scripts/operation-types.ts). */
export const operationTypesFile = path.join(specDir, 'gen/operations.ts');

function main(): void {
  const documents = buildContractDocuments();
  for (const api of apis) {
    const file = path.join(specDir, outputFiles[api]);
    writeFileSync(file, documents[api]);
    console.log(`wrote ${path.relative(repoRoot, file)}`);
  }
  writeFileSync(operationTypesFile, operationTypesSource(documents));
  console.log(`wrote ${path.relative(repoRoot, operationTypesFile)}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
