// Compares one exchange's normalised replies: status, content type, the schema check of each side against the
// operation's contract, then every field (presence and value). Each difference is one line that the explained
// file can match: `status: 200 ≠ 501`, `only ours: meta.apiVersion`, `value: data.name: "a" ≠ "b"`, …
import { validateResponse } from '../../src/http/spec/load-spec.js';
import { operationFor } from '../support/conformance.js';
import type { Json, NormalisedReply } from './normalise.js';
import type { Exchange } from './steps.js';

const MAX_SHOWN = 120;

export function compareReplies(
  exchanges: { upstream: Exchange; ours: Exchange },
  upstream: NormalisedReply,
  ours: NormalisedReply,
): string[] {
  // Until ours builds the operation there is nothing else to compare; the explained file names who builds it.
  if (ours.status === 501 && upstream.status !== 501) return [`status: ${upstream.status} ≠ 501`];
  const differences: string[] = [];
  if (upstream.status !== ours.status) differences.push(`status: ${upstream.status} ≠ ${ours.status}`);
  if (upstream.contentType !== ours.contentType)
    differences.push(`content-type: ${upstream.contentType || '(none)'} ≠ ${ours.contentType || '(none)'}`);
  differences.push(...schemaDifferences(exchanges.upstream, exchanges.ours));
  diffValues(upstream.body, ours.body, 'body', differences);
  return differences;
}

/** A side whose reply does not match the operation's schema, when the other side's does (or fails differently). */
function schemaDifferences(upstream: Exchange, ours: Exchange): string[] {
  const operation = operationFor(ours.request.method, ours.request.path);
  if (!operation) return [];
  // Checked on the raw bodies (placeholders would fail formats); list positions differ, so they are masked.
  const problems = ({ reply }: Exchange) =>
    reply.json === undefined
      ? []
      : validateResponse(operation, reply.status, reply.json).map((p) => p.replace(/\/\d+(?=\/|\s)/g, '/*'));
  const [u, o] = [problems(upstream), problems(ours)];
  return [
    ...o.filter((p) => !u.includes(p)).map((p) => `schema: ours: ${p}`),
    ...u.filter((p) => !o.includes(p)).map((p) => `schema: upstream: ${p}`),
  ];
}

export function diffValues(upstream: Json | undefined, ours: Json | undefined, path: string, out: string[]): void {
  if (isObject(upstream) && isObject(ours)) {
    for (const key of [...new Set([...Object.keys(upstream), ...Object.keys(ours)])].sort()) {
      const child = `${path}.${key}`;
      if (!(key in ours)) out.push(`only upstream: ${child} = ${shown(upstream[key])}`);
      else if (!(key in upstream)) out.push(`only ours: ${child} = ${shown(ours[key])}`);
      else diffValues(upstream[key], ours[key], child, out);
    }
    return;
  }
  if (Array.isArray(upstream) && Array.isArray(ours) && upstream.length === ours.length) {
    upstream.forEach((item, index) => diffValues(item, ours[index], `${path}[${index}]`, out));
    return;
  }
  if (isStringList(upstream) && isStringList(ours)) {
    const onlyUpstream = upstream.filter((item) => !ours.includes(item));
    const onlyOurs = ours.filter((item) => !upstream.includes(item));
    if (onlyUpstream.length > 0 || onlyOurs.length > 0) {
      out.push(`items: ${path}: only upstream ${JSON.stringify(onlyUpstream)}, only ours ${JSON.stringify(onlyOurs)}`);
      return;
    }
  }
  if (JSON.stringify(upstream) !== JSON.stringify(ours))
    out.push(`value: ${path}: ${shown(upstream)} ≠ ${shown(ours)}`);
}

const isStringList = (value: Json | undefined): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

const isObject = (value: Json | undefined): value is { [key: string]: Json } =>
  value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);

function shown(value: Json | undefined): string {
  const text = value === undefined ? '(absent)' : JSON.stringify(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}
