// What the circuit benchmarks read from one `ziti demo zcat` run, and their percentile.

/** The nearest-rank percentile (`p` in 0–100) of `values`; NaN when there are none. */
export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};

/** The SDK's JSON log (`-v --log-formatter json`): milliseconds from "dialing ziti:…" to "connected to ziti:…". */
export function dialMs(log: string): number | undefined {
  const at = (pattern: RegExp) => {
    const line = log.split('\n').find((entry) => pattern.test(entry));
    const time = line ? (JSON.parse(line) as { time?: string }).time : undefined; // a logrus JSON line, read for one field
    return time ? Date.parse(time) : undefined;
  };
  const start = at(/"msg":"dialing ziti:/);
  const end = at(/"msg":"connected to ziti:/);
  return start === undefined || end === undefined ? undefined : end - start;
}

/** The SDK's log lines from "dialing" to "connected", each as `+<ms since dialing> <msg>`: where a dial's time goes. */
export function dialSteps(log: string): string[] {
  const entries = log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { time?: string; msg?: string }); // logrus JSON lines, read for two fields
  const start = entries.findIndex((entry) => entry.msg?.startsWith('dialing ziti:'));
  const end = entries.findIndex((entry) => entry.msg?.startsWith('connected to ziti:'));
  if (start < 0 || end < start) return [];
  const zero = Date.parse(entries[start]?.time ?? '');
  return entries.slice(start, end + 1).map((entry) => `+${Date.parse(entry.time ?? '') - zero} ${entry.msg ?? ''}`);
}
