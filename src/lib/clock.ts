// The injectable clock: every expiry and timestamp reads time through one of these, so tests can move time.

export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** A clock tests can set and advance. */
export function fixedClock(start: Date | string): Clock & { advance(ms: number): void; set(to: Date | string): void } {
  let now = new Date(start).getTime();
  return Object.assign(() => new Date(now), {
    advance(ms: number) {
      now += ms;
    },
    set(to: Date | string) {
      now = new Date(to).getTime();
    },
  });
}

/** RFC3339 with exactly three fractional digits and `Z`, the one timestamp format on the wire and in the store. */
export function formatTimestamp(date: Date): string {
  return date.toISOString();
}

/** Parses durations such as `30m`, `90s`, `1h30m`, `250ms` (Go's time.ParseDuration subset used in settings). */
export function parseDuration(text: string): number | undefined {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const parts = [...text.trim().matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text.trim()) return undefined;
  let total = 0;
  for (const [, value = '', unit = ''] of parts) {
    const scale = units[unit];
    if (scale === undefined) return undefined;
    total += Number(value) * scale;
  }
  return total;
}
