// Terminator strategies (ziti controller/xt_smartrouting, xt_weighted, xt_random, xt_sticky in v1.1.8): each picks
// one of a service's terminators, given them ranked by route cost (precedence band + static + dynamic cost). All
// but random move the shared dynamic costs as dials succeed and fail and circuits end. Pure: the random source is
// injected, the costs are objects the caller owns.
import {
  applyCostEvent,
  biasedCost,
  DynamicCosts,
  FailureCosts,
  precedenceOf,
  unbiasedCost,
  type PrecedenceName,
  type TerminatorEvent,
} from './terminator-costs.js';
import { mustAt } from '../../lib/collections.js';

/** Peer-data key of the sticky strategy's token (ctrl_msg.XtStickinessToken): the terminator id to stick to. */
export const STICKINESS_TOKEN_KEY = 1114;

export interface CandidateTerminator {
  id: string;
  cost: number;
  precedence: string;
}

export interface CostedTerminator<T extends CandidateTerminator = CandidateTerminator> {
  terminator: T;
  precedence: PrecedenceName;
  routeCost: number;
}

export interface Selection<T extends CandidateTerminator> {
  chosen: T;
  /** Peer data the strategy adds to the dialler's answer (sticky's token). */
  peerData: Map<number, Uint8Array>;
}

export interface Strategy {
  readonly name: string;
  /** `ranked` is never empty and is sorted by route cost, lowest first. */
  select<T extends CandidateTerminator>(
    ranked: readonly CostedTerminator<T>[],
    dialPeerData: ReadonlyMap<number, Uint8Array>,
  ): Selection<T>;
  notify(event: TerminatorEvent, terminatorId: string): void;
  /** The terminator went: forget what failures added to it (upstream's HandleTerminatorChange for removals). */
  forget(terminatorId: string): void;
}

/**
 * Ranks terminators as upstream's selectPath: static cost + dynamic cost + the cost of the path to the terminator's
 * router (0 through one router), put in the precedence's band, sorted lowest first. Array.sort is stable, so equal
 * costs keep the given order.
 */
export function rankTerminators<T extends CandidateTerminator>(
  terminators: readonly T[],
  dynamic: DynamicCosts,
  pathCost: (terminator: T) => number = () => 0,
): CostedTerminator<T>[] {
  return terminators
    .map((terminator) => {
      const precedence = precedenceOf(terminator.precedence);
      return {
        terminator,
        precedence,
        routeCost: biasedCost(precedence, terminator.cost + dynamic.get(terminator.id) + pathCost(terminator)),
      };
    })
    .sort((a, b) => a.routeCost - b.routeCost);
}

/** The leading run of terminators sharing the first one's precedence (xt.GetRelatedTerminators). */
export function sameBestPrecedence<T extends CandidateTerminator>(
  ranked: readonly CostedTerminator<T>[],
): CostedTerminator<T>[] {
  const first = mustAt(ranked, 0);
  const end = ranked.findIndex((entry) => entry.precedence !== first.precedence);
  return ranked.slice(0, end < 0 ? ranked.length : end);
}

const none = () => new Map<number, Uint8Array>();

/** The strategies of one process, sharing its dynamic costs, each with failure costs of its own (one instance per name, as upstream's registry). */
export class Strategies {
  readonly dynamic = new DynamicCosts();
  readonly #byName: ReadonlyMap<string, Strategy & { failures?: FailureCosts }>;

  constructor(random: () => number = Math.random) {
    const dynamic = this.dynamic;
    const costed = (name: string, select: Strategy['select']) => {
      const failures = new FailureCosts();
      return {
        name,
        failures,
        select,
        notify: (event: TerminatorEvent, terminatorId: string) =>
          applyCostEvent(event, terminatorId, failures, dynamic),
        forget: (terminatorId: string) => failures.clear(terminatorId),
      };
    };
    const strategies = [
      // The lowest route cost wins: the costs do the balancing.
      costed('smartrouting', (ranked) => ({ chosen: mustAt(ranked, 0).terminator, peerData: none() })),
      costed('weighted', (ranked, _peerData) => ({
        chosen: weightedChoice(sameBestPrecedence(ranked), random),
        peerData: none(),
      })),
      {
        name: 'random',
        select: <T extends CandidateTerminator>(ranked: readonly CostedTerminator<T>[]) => {
          const related = sameBestPrecedence(ranked);
          return {
            chosen: mustAt(related, related.length === 1 ? 0 : Math.floor(random() * related.length)).terminator,
            peerData: none(),
          };
        },
        notify: () => undefined,
        forget: () => undefined,
      },
      costed('sticky', (ranked, peerData) => {
        const related = sameBestPrecedence(ranked);
        const token = peerData.get(STICKINESS_TOKEN_KEY);
        const wanted = token && Buffer.from(token).toString('utf8');
        const chosen = (related.find((entry) => entry.terminator.id === wanted) ?? mustAt(related, 0)).terminator;
        return { chosen, peerData: new Map([[STICKINESS_TOKEN_KEY, new Uint8Array(Buffer.from(chosen.id, 'utf8'))]]) };
      }),
    ];
    this.#byName = new Map(strategies.map((strategy) => [strategy.name, strategy]));
  }

  /** The service's strategy; an empty name is upstream's default. Undefined for a name no strategy has. */
  get(name: string | null | undefined): Strategy | undefined {
    return this.#byName.get(name || 'smartrouting');
  }

  /** A terminator went: every strategy forgets it, and its dynamic cost goes. */
  forget(terminatorId: string): void {
    for (const strategy of this.#byName.values()) strategy.forget(terminatorId);
    this.dynamic.clear(terminatorId);
  }

  /** Upstream credits each costed strategy's failures once a minute (CreditOverTime(5, time.Minute)). */
  creditOverTime(): void {
    for (const strategy of this.#byName.values()) strategy.failures?.creditOverTime(this.dynamic);
  }
}

/**
 * xt_weighted: a random pick in proportion to (1 - cost share), over costs with the precedence's base removed (a
 * cost of 0 counts as 1). As upstream, the thresholds are not normalised, so with three or more terminators the last
 * ones are reached less often than the formula's name suggests, and a draw past the last threshold picks the first.
 */
export function weightedChoice<T extends CandidateTerminator>(
  related: readonly CostedTerminator<T>[],
  random: () => number,
): T {
  if (related.length === 1) return mustAt(related, 0).terminator;
  const costs = related.map((entry) => unbiasedCost(entry.precedence, entry.routeCost) || 1);
  const total = costs.reduce((sum, cost) => sum + cost, 0);
  const draw = random();
  let threshold = 0;
  for (const [index, cost] of costs.entries()) {
    threshold += 1 - cost / total;
    if (draw < threshold) return mustAt(related, index).terminator;
  }
  return mustAt(related, 0).terminator;
}
