import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  freePort,
  get,
  projectRoot,
  startController,
  stopController,
  waitReady,
  type Running,
} from '../../support/controller-process.js';

const root = projectRoot;
const start = (home: string, port: number, env: Record<string, string> = {}, entry?: string[]): Running =>
  startController(home, port, { env, ...(entry ? { entry } : {}) });
const stop = stopController;

describe('the controller process', () => {
  let home: string;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'ziti-process-'));
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('starts over HTTPS with a generated admin password shown once, and stops on SIGTERM', async () => {
    const port = await freePort();
    const running = start(home, port);
    const ca = await waitReady(port, home, running);
    const match = /Default admin "admin" created with password: (\S+)/.exec(running.stdout());
    assert.ok(match, running.stdout());
    const password = match[1]!;
    const file = join(home, 'admin-password');
    assert.equal(readFileSync(file, 'utf8').trim(), password);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(existsSync(join(home, 'ctrl.db')));
    // Where it listens, its home and how to log in.
    assert.match(running.stdout(), new RegExp(`listening on 127\\.0\\.0\\.1:${port}\n`));
    assert.match(running.stdout(), new RegExp(`management API: https://localhost:${port}/edge/management/v1\n`));
    assert.ok(running.stdout().includes(`home:           ${home} `));
    assert.ok(
      running.stdout().includes(`log in:         ziti edge login localhost:${port} -u admin -p "$(cat ${file})"`),
    );

    const login = await get(
      port,
      '/edge/management/v1/authenticate?method=password',
      ca,
      'POST',
      JSON.stringify({ username: 'admin', password }),
    );
    assert.equal(login.status, 200, login.text);
    const version = JSON.parse((await get(port, '/version', ca)).text) as {
      data: { apiVersions: { edge: { v1: { apiBaseUrls: string[] } } } };
    };
    assert.deepEqual(version.data.apiVersions.edge.v1.apiBaseUrls, [`https://localhost:${port}/edge/client/v1`]);
    assert.equal(await stop(running, 'SIGTERM'), 0);
  });

  it('reuses the stored admin on a later start, even with another ZITI_PWD, and stops on SIGINT', async () => {
    const port = await freePort();
    const password = readFileSync(join(home, 'admin-password'), 'utf8').trim();
    const running = start(home, port, { ZITI_PWD: 'a-different-password' });
    const ca = await waitReady(port, home, running);
    assert.doesNotMatch(running.stdout(), /created with password/);
    const body = (pwd: string) => JSON.stringify({ username: 'admin', password: pwd });
    assert.equal(
      (await get(port, '/edge/management/v1/authenticate?method=password', ca, 'POST', body(password))).status,
      200,
    );
    assert.equal(
      (await get(port, '/edge/management/v1/authenticate?method=password', ca, 'POST', body('a-different-password')))
        .status,
      401,
    );
    assert.equal(await stop(running, 'SIGINT'), 0);
  });

  it('refuses to start with a bad setting and names its key', async () => {
    const running = start(home, 1280, { ZITI_SESSION_TIMEOUT: 'forever' });
    const code = await new Promise<number | null>((resolve) => running.child.on('exit', resolve));
    assert.equal(code, 1);
    assert.match(running.stdout(), /\[edge\.api\.sessionTimeout\]/);
  });
});

describe('the production build', () => {
  let out: string;
  let home: string;
  before(() => {
    // Inside the project, so the build resolves its dependencies from node_modules as dist/ does.
    mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
    out = mkdtempSync(join(root, 'node_modules', '.cache', 'ziti-build-'));
    home = mkdtempSync(join(tmpdir(), 'ziti-built-home-'));
  });
  after(() => {
    rmSync(out, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it('compiles to JavaScript that plain node runs: contract files, #src/* imports and a clean stop included', async () => {
    const built = spawnSync(process.execPath, ['scripts/build.mjs', '--out', out], { cwd: root, encoding: 'utf8' });
    assert.equal(built.status, 0, built.stdout + built.stderr);
    for (const file of [
      'src/main.js',
      'src/http/spec/edge-client.json',
      'src/http/spec/edge-management.json',
      'src/store/migrations/data/built-in-config-types.json',
      'package.json',
    ]) {
      assert.ok(existsSync(join(out, file)), file);
    }
    // The alias resolves inside the build as in the sources (dist/package.json carries the imports map).
    const alias = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('#src/lib/clock.js'); process.stdout.write(typeof m.parseDuration)",
      ],
      {
        cwd: out,
        encoding: 'utf8',
      },
    );
    assert.equal(alias.stdout, 'function', alias.stderr);

    // No TypeScript loader: plain node on the compiled entry, NODE_OPTIONS cleared.
    const port = await freePort();
    const running = start(home, port, { NODE_OPTIONS: '' }, [join(out, 'src', 'main.js')]);
    const ca = await waitReady(port, home, running);
    const password = /created with password: (\S+)/.exec(running.stdout())?.[1];
    assert.ok(password, running.stdout());
    const login = await get(
      port,
      '/edge/management/v1/authenticate?method=password',
      ca,
      'POST',
      JSON.stringify({ username: 'admin', password }),
    );
    assert.equal(login.status, 200, login.text);
    const spec = await get(port, '/edge/management/v1/specs/edge-management/spec', ca);
    assert.equal((JSON.parse(spec.text) as { swagger: string }).swagger, '2.0');
    const version = JSON.parse((await get(port, '/version', ca)).text) as { data: { revision: string } };
    assert.match(version.data.revision, /^[0-9a-f]{12}$|^local$/);
    assert.equal(await stop(running, 'SIGTERM'), 0);
  });
});
