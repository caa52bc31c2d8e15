// Checks the scale model's derived tables against a from-scratch evaluation: the controller's own integrity scan
// (src/integrity/integrity-scan.ts), the same evaluation the tests check the engine with, over every row.
import { integrityDifferences } from '../src/integrity/integrity-scan.js';
import { systemClock } from '../src/lib/clock.js';
import { withBenchStore } from './bench-store.js';

export interface LinkCheck {
  ms: number;
  /** Differences the scan found (every derived table, every row). */
  differences: number;
  /** The first few, described. */
  mismatches: string[];
}

const SHOWN = 20;

export async function verifyLinks(home: string): Promise<LinkCheck> {
  const started = performance.now();
  return withBenchStore(home, async (store) => {
    const found = await integrityDifferences(store, systemClock);
    return { ms: performance.now() - started, differences: found.length, mismatches: found.slice(0, SHOWN) };
  });
}
