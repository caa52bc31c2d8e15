// Something that can happen thousands of times a second (a connection refused under load) reported as one line a
// interval with how often it happened, rather than one line each: the log stays readable and cheap in the burst.

export class BurstReport {
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #report: (count: number) => void;
  #count = 0;
  #reportedAt = -Infinity;

  /** `report` receives how many times it happened since the last report (the first occurrence is reported at once). */
  constructor(intervalMs: number, now: () => number, report: (count: number) => void) {
    this.#intervalMs = intervalMs;
    this.#now = now;
    this.#report = report;
  }

  /** It happened once more: reported now if the last report is at least an interval old. */
  hit(): void {
    this.#count++;
    const now = this.#now();
    if (now - this.#reportedAt < this.#intervalMs) return;
    this.#report(this.#count);
    this.#count = 0;
    this.#reportedAt = now;
  }
}
