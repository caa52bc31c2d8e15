// Short turns of the event loop under load. One turn serves every connection whose request is ready, and libuv
// (since 1.45, Node 20) accepts one new connection per turn of a listening socket: with ~200 busy clients a turn
// took ~0.5 s, so new connections waited in the kernel's accept queue for seconds before their TLS handshake began
// (issue 21). Here a turn starts requests for at most a budget of time; later ones wait, in arrival order, and
// start in batches in the turns after it, each batch sized so that its turn takes about the budget. So turns stay
// short, and accepts, handshakes, timers and thread-pool completions come in between. With no load nothing waits:
// the budget is never used up.

/** Work a turn may start before further requests wait for a later turn (ms). */
export const TURN_BUDGET_MS = 5;

export class LoopTurns {
  readonly #budgetMs: number;
  readonly #now: () => number;
  readonly #waiting: (() => void)[] = [];
  #turnStartedAt = 0;
  #inTurn = false;
  /** Waiting requests started at the end of a turn; adjusted to what the last turn took. */
  #batch = 1;
  #lastTurnEndedAt = 0;

  constructor(budgetMs = TURN_BUDGET_MS, now: () => number = () => performance.now()) {
    this.#budgetMs = budgetMs;
    this.#now = now;
  }

  /** Requests waiting for a turn. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Undefined: start now. Otherwise a promise that resolves when the request's turn comes. */
  enter(): Promise<void> | undefined {
    const now = this.#now();
    if (!this.#inTurn) this.#beginTurn(now);
    if (this.#waiting.length === 0 && now - this.#turnStartedAt < this.#budgetMs) return undefined;
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #beginTurn(now: number): void {
    this.#inTurn = true;
    this.#turnStartedAt = now;
    // The check phase, after this turn's I/O; a next one scheduled from there runs in the next turn.
    setImmediate(this.#endTurn);
  }

  readonly #endTurn = (): void => {
    this.#inTurn = false;
    const now = this.#now();
    const turnMs = Math.max(0.001, now - this.#lastTurnEndedAt);
    this.#lastTurnEndedAt = now;
    if (this.#waiting.length === 0) return;
    // The batch's work runs after this callback returns, out of sight of a clock: sized by what the turn it ran
    // in took (that turn's I/O included), growing at most twofold a turn.
    this.#batch = Math.max(1, Math.min(this.#batch * 2, Math.floor((this.#batch * this.#budgetMs) / turnMs)));
    this.#beginTurn(now);
    for (const start of this.#waiting.splice(0, this.#batch)) start();
  };
}
