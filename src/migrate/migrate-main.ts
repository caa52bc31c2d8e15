// `npm run migrate:upstream -- <upstream settings file> --home <new home> [--dry-run]` (ZITI_DATABASE_URL set:
// into PostgreSQL): runs migrate-upstream.ts and says, per type, what it imported and what it could not carry over.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from '../lib/error-message.js';
import { migrateUpstream, type MigrationReport } from './migrate-upstream.js';

const usage = 'usage: npm run migrate:upstream -- <upstream controller settings file> --home <new home> [--dry-run]';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    options: { home: { type: 'string' }, 'dry-run': { type: 'boolean' }, 'database-url': { type: 'string' } },
    allowPositionals: true,
  });
  const [settingsFile, ...extra] = positionals;
  const home = values.home ?? process.env.ZITI_HOME;
  if (settingsFile === undefined || extra.length > 0 || home === undefined) throw new Error(usage);
  const databaseUrl = values['database-url'] ?? (process.env.ZITI_DATABASE_URL || undefined);
  const report = await migrateUpstream({
    settingsFile: resolve(settingsFile),
    home: resolve(home),
    databaseUrl,
    isDryRun: values['dry-run'] === true,
    env: process.env,
  });
  process.stdout.write(describe(report, resolve(home), databaseUrl !== undefined));
}

function describe(report: MigrationReport, home: string, isPostgres: boolean): string {
  const { upstream, data, imported } = report;
  const lines = [
    `upstream settings: ${upstream.file}`,
    `upstream database: ${upstream.database} (schema version ${data.schemaVersion}, read in ${Math.round(report.readMs)} ms)`,
    ...(report.isLockChecked ? [] : ['  (no flock on this machine: make sure upstream is stopped)']),
    imported ? 'imported, per upstream type:' : 'would import, per upstream type (dry run):',
    ...[...data.seen].map(([bucket, count]) => `  ${bucket.padEnd(28)} ${count}`),
  ];
  if (data.dropped.size > 0) {
    lines.push('not carried over:');
    for (const [what, count] of data.dropped) lines.push(`  ${what}: ${count}`);
  }
  if (upstream.ignored.length > 0)
    lines.push(`settings without a meaning here (ignored): ${upstream.ignored.join(', ')}`);
  if (imported) {
    const derived = [...imported.derived.values()].reduce((sum, count) => sum + count, 0);
    lines.push(
      `wrote ${home} (${isPostgres ? 'PostgreSQL database' : 'SQLite ctrl.db'}, settings ${imported.settingsFile}, PKI copies in pki/upstream/) in ${Math.round(imported.ms)} ms; ${derived} policy links and set rows derived`,
      `start it: ${isPostgres ? 'ZITI_DATABASE_URL=… ' : ''}npm start -- --home ${home}`,
      "roll back: stop this controller and start upstream again; none of upstream's files was written",
    );
  }
  return `${lines.join('\n')}\n`;
}

main().catch((error: unknown) => {
  process.stderr.write(`migrate:upstream: ${errorMessage(error)}\n`);
  process.exit(1);
});
