// The end of a bench script: its result written to bench/results/<name>-<start>.json and to stdout, and `main` run
// with its failure reported and every cleanup done however it ended.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCleanup } from './cleanup.js';
import { ROOT } from './scenario-run.js';

/** Writes `result` to bench/results/`name`-`startedAt`.json and prints it. */
export function writeResult(name: string, startedAt: string, result: unknown): void {
  const folder = join(ROOT, 'bench/results');
  mkdirSync(folder, { recursive: true });
  const text = `${JSON.stringify(result, null, 2)}\n`;
  writeFileSync(join(folder, `${name}-${startedAt.replaceAll(':', '-')}.json`), text);
  process.stdout.write(text);
}

/** Runs a bench's `main`: a failure is printed and sets the exit code; cleanup runs either way. */
export function runBench(main: () => Promise<void>): void {
  main()
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    })
    .finally(() => runCleanup());
}
