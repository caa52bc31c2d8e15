// The wire record's format: every answer of a corpus replay against our controller alone, normalised, and the
// comparison of two records (before and after a change). The commands are wire-record.ts and wire-compare.ts.
import { diffValues } from './compare.js';
import { normaliseOne, stringPlaceholder, type Json } from './normalise.js';
import type { Exchange, RunState } from './steps.js';

/** One answer as recorded: what a client sees, with what differs from run to run replaced. */
export interface RecordedAnswer {
  key: string;
  status: number;
  contentType: string;
  headers: Record<string, Json>;
  body: Json | undefined;
}

export interface WireRecord {
  sequences: string[];
  answers: RecordedAnswer[];
  /** Sequences that threw (their answers up to the throw are recorded): the first line of each error. */
  failures: string[];
}

/**
 * Headers that differ on every run or only restate the body: the rest (content type, caching, security headers,
 * `allow`, `location`, …) are part of the wire and kept.
 */
const VARYING_HEADERS = new Set(['date', 'content-length', 'connection', 'keep-alive', 'transfer-encoding']);
/** Headers whose value is chosen afresh by each controller home: kept, with the value as a placeholder. */
const PER_HOME_HEADERS = new Set(['ziti-instance-id']);

export function recordAnswer(exchange: Exchange, state: RunState): RecordedAnswer {
  const { status, contentType, body: normalised } = normaliseOne({ exchange, state });
  const body = normalised === undefined ? undefined : perRun(normalised, '');
  const address = state.peer.baseUrl.replace(/^https:\/\//, '');
  const named = (text: string) =>
    state.withNames(text).split(state.peer.baseUrl).join('<base>').split(address).join('<address>');
  const headers = Object.fromEntries(
    Object.entries(exchange.reply.headers)
      .filter(([name]) => !VARYING_HEADERS.has(name))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, value]) => [
        name,
        PER_HOME_HEADERS.has(name) ? '<per-home>' : stringPlaceholder(named(value), name),
      ]),
  );
  return { key: exchange.key, status, contentType, headers, body };
}

/** A JWT signer's test key id (test/support/jwt-issuer.ts): a counter and a random suffix, chosen by the test. */
const TEST_KID = /key-\d+-[0-9a-z]+/g;
const EMBEDDED_FINGERPRINT = /\b[0-9a-f]{40}\b/g;
/** Upstream names the first referrer in id order (src/errors/api-error.ts referencedByKey); ids are random. */
const FIRST_REFERRER = /^(entity type \w+ referenced by \w+: )?\[<[^>\]]+>\]$/;

/**
 * What the differential leaves in place because it shows up as an explained difference there, but which differs
 * between two runs of the same controller: key material (a JWK's coordinates, a signature), fingerprints inside
 * messages, the test's own random key ids, and which of several referrers comes first in (random) id order.
 */
function perRun(value: Json, key: string): Json {
  if (typeof value === 'string') {
    if (key === 'signature') return '<signature>';
    const text = value.replace(EMBEDDED_FINGERPRINT, '<fingerprint>').replace(TEST_KID, '<test-kid>');
    return FIRST_REFERRER.test(text) ? text.replace(/\[<[^>\]]+>\]$/, '[<first-referrer>]') : text;
  }
  if (Array.isArray(value)) return value.map((item) => perRun(item, ''));
  if (value === null || typeof value !== 'object') return value;
  const isJwk = typeof value.kty === 'string';
  return Object.fromEntries(
    Object.entries(value).map(([field, item]) => [
      field,
      isJwk && ['x', 'y', 'n'].includes(field) ? '<key-material>' : perRun(item, field),
    ]),
  );
}

export interface RecordComparison {
  /** One line per difference: `<key>: <difference>`, in the first record's order. */
  differences: string[];
  /** Answers present in both and equal. */
  identical: number;
}

/** Pairs two records' answers by key; anything not byte-for-byte equal (after normalisation) is a difference. */
export function compareRecords(before: WireRecord, after: WireRecord): RecordComparison {
  const differences: string[] = [];
  const afterByKey = new Map(after.answers.map((answer) => [answer.key, answer]));
  const beforeKeys = new Set(before.answers.map((answer) => answer.key));
  let identical = 0;
  for (const b of before.answers) {
    const a = afterByKey.get(b.key);
    if (!a) {
      differences.push(`${b.key}: only in the first record`);
      continue;
    }
    const found = answerDifferences(b, a);
    if (found.length === 0) identical += 1;
    differences.push(...found.map((difference) => `${b.key}: ${difference}`));
  }
  differences.push(
    ...after.answers.filter((a) => !beforeKeys.has(a.key)).map((a) => `${a.key}: only in the second record`),
  );
  for (const failure of before.failures.filter((f) => !after.failures.includes(f)))
    differences.push(`failure only in the first record: ${failure}`);
  for (const failure of after.failures.filter((f) => !before.failures.includes(f)))
    differences.push(`failure only in the second record: ${failure}`);
  return { differences, identical };
}

function answerDifferences(before: RecordedAnswer, after: RecordedAnswer): string[] {
  const out: string[] = [];
  if (before.status !== after.status) out.push(`status: ${before.status} ≠ ${after.status}`);
  if (before.contentType !== after.contentType)
    out.push(`content-type: ${before.contentType || '(none)'} ≠ ${after.contentType || '(none)'}`);
  diffValues(before.headers, after.headers, 'headers', out);
  diffValues(before.body, after.body, 'body', out);
  // diffValues compares keys by name and lists of strings of unequal length as sets (the differential's rules);
  // the record holds one controller, so any reordering is a change too.
  if (out.length === 0 && JSON.stringify(before) !== JSON.stringify(after))
    out.push('order: same values in another order');
  return out;
}
