// The reviewed list of known differences (explained-differences.yaml): each entry names the exchanges it covers,
// optionally which of their difference lines, and always why. An exchange counts as explained when every one of its
// differences is covered by some entry.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** Why a difference is acceptable. */
export const KINDS = {
  seeds: 'the seed specifications state it explicitly, and they win over upstream',
  'upstream-bug': 'upstream is broken here and we do what its documents promise',
  extension: 'ours answers where upstream has nothing (or more than upstream)',
  design: 'a decision recorded in docs/design.md part 0, with its reason there',
  decided: "a deviation a landed issue decided on purpose (its engineer's report names it)",
  wording: 'only a human-readable text differs (status, code and field agree)',
  gap: 'a shortfall of ours outside this change, reported to the integrator',
  harness: 'a property of the two test instances, not of the controllers',
} as const;

export type Kind = keyof typeof KINDS;

export interface Explanation {
  /** Glob (`*` = any text) over exchange keys: `<sequence>: <METHOD> <path>`. */
  exchange: string;
  /** Globs over difference lines; absent = every difference of the matching exchanges. */
  differences?: string[];
  kind: Kind;
  reason: string;
  /** The difference appears in some runs only (it rests on random ids): the entry may match nothing in a run. */
  occasional?: boolean;
}

export interface LoadedExplanation extends Explanation {
  exchangeRegex: RegExp;
  differenceRegexes: RegExp[] | undefined;
  used: number;
}

export function loadExplanations(file: string): LoadedExplanation[] {
  const entries = parse(readFileSync(file, 'utf8')) as unknown;
  if (!Array.isArray(entries)) throw new Error(`${file}: expected a list of entries`);
  return entries.map((entry: Partial<Explanation>, index) => {
    const where = `${file}: entry ${index + 1}`;
    if (typeof entry.exchange !== 'string')
      throw new Error(`${where}: "exchange" (a glob over exchange keys) is required`);
    if (typeof entry.reason !== 'string' || entry.reason.trim().length < 10)
      throw new Error(`${where}: every entry carries its reason`);
    if (typeof entry.kind !== 'string' || !(entry.kind in KINDS))
      throw new Error(`${where}: kind must be one of ${Object.keys(KINDS).join(', ')}`);
    if (
      entry.differences !== undefined &&
      (!Array.isArray(entry.differences) || entry.differences.some((d) => typeof d !== 'string'))
    ) {
      throw new Error(`${where}: "differences" is a list of globs`);
    }
    return {
      exchange: entry.exchange,
      kind: entry.kind,
      reason: entry.reason,
      ...(entry.occasional === true ? { occasional: true } : {}),
      ...(entry.differences ? { differences: entry.differences } : {}),
      exchangeRegex: globToRegex(entry.exchange),
      differenceRegexes: entry.differences?.map(globToRegex),
      used: 0,
    };
  });
}

/** For each difference, the first entry that covers it (undefined where none does). */
export function explain(
  key: string,
  differences: string[],
  explanations: LoadedExplanation[],
): Array<LoadedExplanation | undefined> {
  const candidates = explanations.filter((entry) => entry.exchangeRegex.test(key));
  return differences.map((difference) => {
    const entry = candidates.find(
      (candidate) =>
        !candidate.differenceRegexes || candidate.differenceRegexes.some((regex) => regex.test(difference)),
    );
    if (entry) entry.used++;
    return entry;
  });
}

function globToRegex(glob: string): RegExp {
  const escaped = glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('[\\s\\S]*')}$`);
}
