// The harness's verdict: the summary line, explained differences by kind, every unexplained exchange with its
// request and both answers, operations no exchange reached, and explained entries that matched nothing.
import { loadContract } from '../../src/http/spec/load-spec.js';
import { operationFor } from '../support/conformance.js';
import { KINDS, type Kind, type LoadedExplanation } from './explained.js';
import type { PairResult, ReplayResult } from './replay.js';
import type { Exchange } from './steps.js';

const SHOWN_BODY = 400;

/** Operations of both contracts that no exchange landed on, on both controllers. */
export function uncoveredOperations(pairs: PairResult[]): string[] {
  const reached = new Set<string>();
  for (const pair of pairs) {
    if (!pair.upstream || !pair.ours) continue;
    const operation = operationFor(pair.ours.request.method, pair.ours.request.path);
    if (operation) reached.add(`${operation.api} ${operation.method} ${operation.path}`);
  }
  const all = (['management', 'client'] as const).flatMap((api) =>
    loadContract(api).operations.map((op) => `${api} ${op.method} ${op.path}`),
  );
  return all.filter((operation) => !reached.has(operation));
}

export function formatReport(
  result: ReplayResult,
  uncovered: string[],
  unused: LoadedExplanation[],
): { text: string; passed: boolean } {
  const { pairs, failures } = result;
  const count = (verdict: PairResult['verdict']) => pairs.filter((pair) => pair.verdict === verdict).length;
  const unexplained = pairs.filter((pair) => pair.verdict === 'unexplained');
  const lines: string[] = [];
  for (const group of groupBySignature(unexplained)) lines.push(...describeGroup(group));
  for (const failure of failures)
    lines.push(`SEQUENCE FAILED: ${failure.sequence} on ${failure.peer}: ${failure.error}`, '');
  if (uncovered.length > 0)
    lines.push(`operations no exchange reached (${uncovered.length}):`, ...uncovered.map((op) => `  ${op}`), '');
  if (unused.length > 0)
    lines.push(
      'explained entries that matched nothing (remove or fix them):',
      ...unused.map((e) => `  ${e.exchange} ${JSON.stringify(e.differences ?? '*')}`),
      '',
    );
  lines.push(...explainedByKind(pairs));
  const total = operationsTotal();
  lines.push(`operations reached: ${total - uncovered.length}/${total}`);
  lines.push(
    `${pairs.length} exchanges, ${count('identical')} identical, ${count('explained')} explained, ${unexplained.length} unexplained`,
  );
  const passed = unexplained.length === 0 && failures.length === 0 && uncovered.length === 0 && unused.length === 0;
  return { text: lines.join('\n'), passed };
}

function explainedByKind(pairs: PairResult[]): string[] {
  const byKind = new Map<Kind, number>();
  for (const pair of pairs.filter((p) => p.verdict === 'explained')) {
    for (const kind of new Set(pair.kinds)) if (kind) byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  }
  if (byKind.size === 0) return [];
  return [
    'explained exchanges by reason (an exchange may have several):',
    ...[...byKind].map(([kind, n]) => `  ${kind}: ${n} (${KINDS[kind]})`),
  ];
}

/** Unexplained exchanges with the same unexplained differences, shown once with the others' keys. */
function groupBySignature(pairs: PairResult[]): PairResult[][] {
  const groups = new Map<string, PairResult[]>();
  for (const pair of pairs) {
    const signature = pair.differences.filter((_, index) => !pair.kinds[index]).join('\n');
    groups.set(signature, [...(groups.get(signature) ?? []), pair]);
  }
  return [...groups.values()];
}

function describeGroup([pair, ...others]: PairResult[]): string[] {
  const request = (pair!.ours ?? pair!.upstream)!.request;
  const body = request.body === undefined ? '' : ` ${truncate(request.body)}`;
  const also =
    others.length === 0 ? [] : [`  the same in ${others.length} more: ${others.map((other) => other.key).join(' | ')}`];
  return [...describePair(pair!, body, request), ...also, ''];
}

function describePair(pair: PairResult, body: string, request: Exchange['request']): string[] {
  return [
    `UNEXPLAINED ${pair.key}`,
    `  request: ${request.method} ${request.path}${body}`,
    ...pair.differences.map((difference, index) => `  ${pair.kinds[index] ? '  (explained) ' : '- '}${difference}`),
    `  upstream: ${answer(pair.upstream)}`,
    `  ours:     ${answer(pair.ours)}`,
  ];
}

function answer(exchange: Exchange | undefined): string {
  if (!exchange) return '(not sent)';
  return `${exchange.reply.status} ${truncate(exchange.reply.text.trim())}`;
}

const truncate = (text: string) => (text.length > SHOWN_BODY ? `${text.slice(0, SHOWN_BODY)}…` : text);

const operationsTotal = () => loadContract('management').operations.length + loadContract('client').operations.length;
