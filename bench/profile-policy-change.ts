// Where a policy change at scale spends its time: replays the scale phase's 5% policy change (add, then remove the
// extra service attribute) on a kept bench database through syncPolicy, timing every SQL statement, the commit and
// the WAL checkpoint the store runs between requests, with the query plans of the slow statements.
// Usage: BENCH_KEEP_HOME=1 BENCH_PHASES=scale npm run bench, then
//        node --import tsx bench/profile-policy-change.ts <home>/ctrl.db [rounds]
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, type LogEvent } from 'kysely';
import { servicePolicyKind } from '../src/store/queries/policy-tables.js';
import { syncPolicy, type PolicyRoles } from '../src/policy/policy-links.js';
import { applyConnectionSettings } from '../src/store/sqlite/sqlite-store.js';
import type { Db } from '../src/store/store.js';
import { FIVE_PERCENT, fivePercentPolicy } from './scale-model.js';

const SLOW_MS = 20;

const file = process.argv[2];
if (!file) throw new Error('usage: profile-policy-change.ts <ctrl.db> [rounds]');
const rounds = Number(process.argv[3] ?? 2);

// The same settings as the store, so statements and commits cost what they cost there.
const database = new Database(file);
applyConnectionSettings(database);
const statements: LogEvent[] = [];
const db: Db = new Kysely({ dialect: new SqliteDialect({ database }), log: (event) => void statements.push(event) });

const row = database
  .prepare(`SELECT id, semantic, type, identity_roles FROM service_policies WHERE name = ?`)
  .get(FIVE_PERCENT.policyName) as { id: string; semantic: string; type: number; identity_roles: string } | undefined;
if (!row) throw new Error(`no policy named ${FIVE_PERCENT.policyName}: not a scale-phase database`);
const view = (withExtra: boolean): PolicyRoles => ({
  id: row.id,
  semantic: row.semantic,
  type: row.type,
  roles: {
    identityRoles: JSON.parse(row.identity_roles) as string[],
    serviceRoles: fivePercentPolicy(withExtra).roles.service_roles,
    postureCheckRoles: null,
  },
});

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
const plans = new Map<string, string[]>();

for (let step = 0; step < rounds * 2; step++) {
  const adding = step % 2 === 0;
  statements.length = 0;
  const started = performance.now();
  await db
    .transaction()
    .execute((tx) => syncPolicy(tx, servicePolicyKind, view(adding), view(!adding), new Date().toISOString()));
  const total = performance.now() - started;
  const inStatements = statements.reduce((sum, event) => sum + event.queryDurationMillis, 0);
  // The store's timer checkpoints between requests; done here between steps so each commit starts from an empty WAL.
  const checkpointStarted = performance.now();
  database.pragma('wal_checkpoint(PASSIVE)');
  const checkpoint = performance.now() - checkpointStarted;
  process.stdout.write(
    `${adding ? 'add' : 'remove'}: ${total.toFixed(0)} ms, ${statements.length} statements (${inStatements.toFixed(0)} ms in SQLite); then checkpoint ${checkpoint.toFixed(0)} ms\n`,
  );
  for (const event of statements) {
    if (event.queryDurationMillis < 1) continue;
    const text = oneLine(event.query.sql);
    process.stdout.write(`  ${event.queryDurationMillis.toFixed(1).padStart(7)} ms  ${text.slice(0, 150)}\n`);
    if (event.queryDurationMillis >= SLOW_MS && /^(INSERT|UPDATE|DELETE|SELECT)/i.test(text) && !plans.has(text)) {
      const plan = database.prepare(`EXPLAIN QUERY PLAN ${event.query.sql}`).all(...event.query.parameters) as Array<{
        detail: string;
      }>;
      plans.set(
        text,
        plan.map((p) => p.detail),
      );
    }
  }
}
process.stdout.write('\nquery plans of the statements over 20 ms:\n');
for (const [text, plan] of plans)
  process.stdout.write(`${text.slice(0, 150)}\n${plan.map((p) => `    ${p}`).join('\n')}\n`);
await db.destroy();
