import { scanIntegrity } from '../src/database/integrity-scan.js';
import { systemClock } from '../src/lib/clock.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { migrations } from '../src/store/migrations/index.js';
const store = await openSqliteStore({ file: process.argv[2]!, migrations });
const started = performance.now();
await scanIntegrity(store, { fix: false, clock: systemClock, report: () => undefined, progress: (table, n, ms) => { if (ms > 500) console.log(table, n, ms.toFixed(0)); } });
console.log('total', ((performance.now() - started) / 1000).toFixed(1));
await store.close();
