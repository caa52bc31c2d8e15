// Hostile requests for any contract operation, from a seeded generator: what a fuzzer, a broken client or an
// attacker sends. Each is a valid request (sample-request.ts) with one or more parts made hostile.
import type { OperationSpec } from '../../src/http/spec/load-spec.js';
import { bodyPropertyNames, sampleRequest } from './sample-request.js';

export interface HostileRequest {
  method: OperationSpec['method'];
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** What was made hostile, for the failure report. */
  what: string;
}

/** A small seeded generator (mulberry32): the same seed gives the same requests on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const RAW = Symbol('raw JSON text');
/** JSON text pieces JSON.stringify cannot write (1e400) or that must stay exact (digits past 2^53). */
const RAW_NUMBERS = [
  '1e400',
  '-1e400',
  '123456789012345678901234567890',
  '-9223372036854775809',
  '9223372036854775807',
  '-0',
  '1.5',
  '-1',
  '0',
];
const STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\uffff',
  '\u202eevil',
  '😀'.repeat(50),
  "' OR 1=1 --",
  '../../x',
  '%s%n%x',
  '#all',
  '@',
  '#',
  '<b>x</b>',
  'x'.repeat(5000),
];
const nested = (depth: number, inner: unknown): unknown => (depth === 0 ? inner : { a: nested(depth - 1, inner) });

/** A hostile value for one field: wrong types, odd text, huge arrays, deep objects, raw out-of-range numbers. */
function hostileValue(random: Random): unknown {
  switch (Math.floor(random() * 9)) {
    case 0:
      return pick(random, STRINGS);
    case 1:
      return { [RAW]: pick(random, RAW_NUMBERS) };
    case 2:
      return pick(random, [null, true, false, {}, [], 0, '']);
    case 3:
      return Array.from({ length: 20_000 }, (_, index) => (random() < 0.5 ? `#attr-${index}` : index));
    case 4:
      return Array.from({ length: 50 }, () => pick(random, STRINGS));
    case 5:
      return nested(pick(random, [40, 450]), pick(random, STRINGS));
    case 6:
      return { nested: { x: pick(random, STRINGS) }, list: [null, {}, []] };
    case 7:
      return 'y'.repeat(pick(random, [70_000, 300_000]));
    default:
      return pick(random, [
        '@no-such-id',
        '#all',
        'AllOf',
        'Dial',
        'updb',
        'ott',
        '2020-02-30T25:61:61Z',
        '2099-01-01T00:00:00+99:99',
      ]);
  }
}

/** JSON.stringify, with `{[RAW]: text}` written as that text. */
function jsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (item && typeof item === 'object' && RAW in item) {
      raws.push((item as { [RAW]: string })[RAW]);
      return `\u0001raw${raws.length - 1}\u0001`;
    }
    return item;
  });
  return text.replace(/"\\u0001raw(\d+)\\u0001"/g, (_match, index: string) => raws[Number(index)]!);
}

const IDS = ['x', '%00', '..', 'a%2Fb', 'z'.repeat(3000), '😀', '%F0%9F%98%80', "'", '@all', '%zz', ' '];
const FILTERS = [
  'name = ',
  '((((',
  `${'('.repeat(150)}name = "x"${')'.repeat(150)}`,
  `${'not '.repeat(150)}name = "x"`,
  'name contains "\u0000"',
  'tags.a.b.c.d = 1',
  'anyOf(roleAttributes) = 1e400',
  'createdAt > datetime(2020-13-45T00:00:00Z)',
  `id in [${Array.from({ length: 1500 }, (_, index) => `"id-${index}"`).join(',')}]`,
  Array.from({ length: 300 }, (_, index) => `name = "n${index}"`).join(' or '),
  'true limit 99999999999999999999',
  'true sort by nope desc',
  'true skip -1',
  'name = "x" limit none',
  'isAdmin = "yes"',
  'nosuchfield = 1',
];
const LIMITS = ['-1', '-2', '0', '1e3', '99999999999999999999', 'abc', '501', '9223372036854775807'];
const CONTENT_TYPES = [
  'text/plain',
  'application/x-pem-file',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'garbage/',
  '',
];
const ACCEPTS = ['application/x-pem-file', 'text/html', '*/*;q=abc', 'application/json;q=0'];

/**
 * The hostile requests for one operation: `count` of them, plus `known` ids to put in the path where the first
 * path segment names a collection (so some requests reach the entity's rules, not only its 404).
 */
export function hostileRequests(
  op: OperationSpec,
  random: Random,
  count: number,
  known: ReadonlyMap<string, string>,
): HostileRequest[] {
  const sample = sampleRequest(op);
  const takesBody = op.parameters.some((parameter) => parameter.in === 'body');
  const properties = [
    ...new Set([...bodyPropertyNames(op), ...Object.keys(isObject(sample.payload) ? sample.payload : {})]),
  ];
  const knownId = known.get(op.path.split('/')[1] ?? '');
  const hasPathId = op.path.includes('{');
  const requests: HostileRequest[] = [];
  const base = (what: string): HostileRequest => ({
    method: op.method,
    url: knownId && random() < 0.6 ? sample.url.replaceAll('sample-id', knownId) : sample.url,
    headers: { ...sample.headers },
    ...(sample.payload === undefined
      ? {}
      : { payload: typeof sample.payload === 'string' ? sample.payload : JSON.stringify(sample.payload) }),
    what,
  });
  const kinds = [
    'path',
    'query',
    'query',
    'body',
    'body',
    'body',
    'body',
    'wholeBody',
    'contentType',
    'accept',
    'slashes',
  ];
  for (let index = 0; index < count; index++) {
    const kind = index === 0 ? 'sample' : pick(random, kinds);
    const request = base(kind);
    if (kind === 'path' && hasPathId) {
      const id = pick(random, IDS);
      request.url = sample.url.replaceAll('sample-id', id);
      request.what = `path id ${JSON.stringify(id.slice(0, 20))}`;
    } else if (kind === 'query') {
      const [name, value] = pick(random, [
        ['filter', pick(random, FILTERS)],
        ['limit', pick(random, LIMITS)],
        ['offset', pick(random, LIMITS)],
        ['sort', pick(random, ['name desc, nope', 'id asc asc', ''])],
        ['configTypes', pick(random, ['all', 'x'.repeat(2000), '%00'])],
        ['roleFilter', pick(random, ['#', '@', '#all', '#'.repeat(500)])],
        ['roleSemantic', pick(random, ['AnyOf', 'nope', ''])],
      ] as const);
      request.url += `${request.url.includes('?') ? '&' : '?'}${name}=${encodeURIComponent(value)}`;
      request.what = `query ${name}=${JSON.stringify(value.slice(0, 40))}`;
    } else if (kind === 'body' && takesBody && properties.length > 0 && isObject(sample.payload)) {
      const body: Record<string, unknown> = { ...sample.payload };
      const touched = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(random, properties));
      for (const property of touched) body[property] = hostileValue(random);
      request.payload = jsonText(body);
      request.headers['content-type'] = 'application/json';
      request.what = `body fields ${touched.join(', ')}: ${request.payload.slice(0, 80)}`;
    } else if (kind === 'wholeBody' || kind === 'body') {
      const payload = pick(random, [
        `${'['.repeat(2300)}${']'.repeat(2300)}`,
        `${'{"a":'.repeat(2300)}1${'}'.repeat(2300)}`,
        '[]',
        '"text"',
        'null',
        '1e400',
        '{"a":1,',
        '\u0000\u0001\u0002',
        jsonText(hostileValue(random)),
      ]);
      request.payload = payload;
      request.headers['content-type'] = 'application/json';
      request.what = `whole body ${payload.slice(0, 40)}`;
    } else if (kind === 'contentType') {
      const type = pick(random, CONTENT_TYPES);
      request.headers['content-type'] = type;
      request.payload ??= '{"a":1}';
      request.what = `content type ${JSON.stringify(type)}`;
    } else if (kind === 'accept') {
      request.headers.accept = pick(random, ACCEPTS);
      request.what = `accept ${request.headers.accept}`;
    } else if (kind === 'slashes') {
      request.url = request.url.replace(/\/([^/?]+)(\?|$)/, '//$1/$2');
      request.what = `slashes ${request.url}`;
    }
    requests.push(request);
  }
  return requests;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
