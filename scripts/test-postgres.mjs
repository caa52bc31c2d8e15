// `npm run test:postgres`: the store tier (test/store/, the store's own tests) and the whole API suite against
// PostgreSQL. ZITI_TEST_DATABASE_URL names a database the role may create schemas in; every test app and fixture
// works in a fresh schema it drops when done. Without the URL this fails: a PostgreSQL run that quietly ran on
// SQLite, or ran nothing, would look green. An unreachable server fails the first test that connects.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const url = process.env.ZITI_TEST_DATABASE_URL;
if (!url || !/^postgres(ql)?:\/\//.test(url)) {
  process.stderr.write('test:postgres needs ZITI_TEST_DATABASE_URL=postgres://user:password@host:port/database (see README)\n');
  process.exit(1);
}

/** Every `*.test.ts` under `folder`, sorted. */
function testsUnder(folder) {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
    .sort();
}

const files = [...testsUnder('test/store'), ...testsUnder('src/store'), ...testsUnder('test/api')];
const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], { stdio: 'inherit' });
process.exit(run.status ?? 1);
