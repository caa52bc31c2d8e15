// The engine is right when, after any sequence of changes, a from-scratch evaluation of every policy finds nothing
// to repair: the integrity scan's evaluation (src/policy/expected-links.ts), in plain code apart from the engine's SQL.
import assert from 'node:assert/strict';
import { integrityDifferences } from '../../src/integrity/integrity-scan.js';
import { systemClock } from '../../src/lib/clock.js';
import type { Store } from '../../src/store/store.js';

/** Asserts that every derived table holds exactly what a from-scratch evaluation computes. */
export async function assertLinksConsistent(store: Store, context = ''): Promise<void> {
  assert.deepEqual(await integrityDifferences(store, systemClock), [], context);
}
