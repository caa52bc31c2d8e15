// `npm run test:postgres`: the store tier (test/store/, the store's own tests), the whole API suite, the router
// control plane (test/fabric/), the import of upstream's database (test/migrate/) and the
// instance tests (test/cluster/) against PostgreSQL. ZITI_TEST_DATABASE_URL names a database the role may create schemas in; every test app and fixture
// works in a fresh schema it drops when done. Without the URL this fails: a PostgreSQL run that quietly ran on
// SQLite, or ran nothing, would look green. An unreachable server fails the first test that connects.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const url = process.env.ZITI_TEST_DATABASE_URL;
if (!url || !/^postgres(ql)?:\/\//.test(url)) {
  process.stderr.write(
    'test:postgres needs ZITI_TEST_DATABASE_URL=postgres://user:password@host:port/database (see README)\n',
  );
  process.exit(1);
}

/** Every `*.test.ts` under `folder`, sorted. */
function testsUnder(folder) {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
    .sort();
}

const files = [
  ...testsUnder('test/store'),
  ...testsUnder('src/store'),
  ...testsUnder('test/api'),
  ...testsUnder('test/fabric'),
  ...testsUnder('test/migrate'),
];
const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
});
// Then the instance tests (test/cluster/*.postgres.ts: several controllers on one database, real processes among
// them), one file at a time: they start and kill controllers of their own.
const cluster = readdirSync('test/cluster')
  .filter((name) => name.endsWith('.postgres.ts'))
  .map((name) => join('test/cluster', name))
  .sort();
const instances = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...cluster], {
  stdio: 'inherit',
});
process.exit(run.status === 0 ? (instances.status ?? 1) : (run.status ?? 1));
