// How terminators are ranked for a dial (ziti controller/xt/costs.go, failure.go, xt_common/cost_visitor.go in
// v1.1.8): a precedence puts a terminator in a band of route costs, its static cost and a dynamic cost move it
// inside that band. The dynamic cost rises by 2 while a circuit uses the terminator and by 20 (up to 16383) for
// each failed dial; successes and the passing minutes pay the failures back. Pure bookkeeping: no clock, no timer;
// the owner calls creditOverTime once a minute as upstream's ticker does.

const MAX_U16 = 65535;

export type PrecedenceName = 'required' | 'default' | 'failed';

interface Band {
  min: number;
  max: number;
}

/** Upstream's bands: a required terminator always ranks before a default one, a default before a failed one. */
const bands: Record<PrecedenceName, Band> = {
  required: { min: 0, max: MAX_U16 * 4 - 1 },
  default: { min: MAX_U16 * 4, max: MAX_U16 * 8 - 1 },
  failed: { min: MAX_U16 * 8, max: MAX_U16 * 12 - 1 },
};

/** Unknown names read as default, as upstream's GetPrecedenceForName. */
export function precedenceOf(name: string | null | undefined): PrecedenceName {
  return name === 'required' || name === 'failed' ? name : 'default';
}

/** The cost placed in its precedence's band, capped at the band's top. */
export function biasedCost(precedence: PrecedenceName, cost: number): number {
  const band = bands[precedence];
  return Math.min(band.min + cost, band.max);
}

export function unbiasedCost(precedence: PrecedenceName, routeCost: number): number {
  return routeCost - bands[precedence].min;
}

/** Upstream's global dynamic costs: one value per terminator id, 0 when none is kept. */
export class DynamicCosts {
  readonly #costs = new Map<string, number>();

  get(terminatorId: string): number {
    return this.#costs.get(terminatorId) ?? 0;
  }

  update(terminatorId: string, change: (cost: number) => number): void {
    const next = change(this.get(terminatorId));
    if (next === 0) this.#costs.delete(terminatorId);
    else this.#costs.set(terminatorId, next);
  }

  clear(terminatorId: string): void {
    this.#costs.delete(terminatorId);
  }

  get size(): number {
    return this.#costs.size;
  }
}

/** What failures have added to each terminator's cost, to be paid back by successes (upstream's failureCosts). */
export class FailureCosts {
  readonly #costs = new Map<string, number>();

  constructor(
    readonly maxFailureCost = Math.floor(MAX_U16 / 4),
    readonly failureCost = 20,
    readonly successCredit = 2,
  ) {}

  /** Records a failure; answers how much the cost rose. */
  failure(terminatorId: string): number {
    const current = this.#costs.get(terminatorId);
    if (current === undefined) {
      this.#costs.set(terminatorId, this.failureCost);
      return this.failureCost;
    }
    const next = Math.min(current + this.failureCost, this.maxFailureCost);
    this.#costs.set(terminatorId, next);
    return next - current;
  }

  /** Records a success; answers how much failure cost it paid back. */
  success(terminatorId: string, credit = this.successCredit): number {
    const current = this.#costs.get(terminatorId);
    if (current === undefined) return 0;
    if (current === 0) {
      this.#costs.delete(terminatorId);
      return 0;
    }
    const paid = Math.min(current, credit);
    this.#costs.set(terminatorId, current - paid);
    return paid;
  }

  clear(terminatorId: string): void {
    this.#costs.delete(terminatorId);
  }

  /** Upstream's CreditOverTime tick: every failing terminator is credited as by a success, and its dynamic cost falls. */
  creditOverTime(dynamic: DynamicCosts, credit = 5): void {
    for (const terminatorId of [...this.#costs.keys()]) {
      const paid = this.success(terminatorId, credit);
      dynamic.update(terminatorId, (cost) => Math.max(0, cost - paid));
    }
  }
}

/** What a dial did to a terminator, as the strategies hear it (upstream's TerminatorEvent). */
export type TerminatorEvent = 'dialFailed' | 'dialSucceeded' | 'circuitRemoved';

/** The cost visitor of smartrouting, weighted and sticky (xt_common.CostVisitor, CircuitCost 2). */
export function applyCostEvent(
  event: TerminatorEvent,
  terminatorId: string,
  failures: FailureCosts,
  dynamic: DynamicCosts,
  circuitCost = 2,
): void {
  if (event === 'dialFailed') {
    const change = failures.failure(terminatorId);
    if (change > 0) dynamic.update(terminatorId, (cost) => Math.min(cost + change, MAX_U16));
  } else if (event === 'dialSucceeded') {
    const credit = failures.success(terminatorId);
    if (credit !== circuitCost)
      dynamic.update(terminatorId, (cost) => Math.max(0, Math.min(cost + circuitCost - credit, MAX_U16)));
  } else {
    dynamic.update(terminatorId, (cost) => Math.max(0, cost - circuitCost));
  }
}
