// `npm run build`: compiles src/ to JavaScript under dist/ (tsc), copies the files the code reads at run time (the
// contract JSON, migration data) beside it, and writes dist/package.json so `#src/*` imports and the version
// resolve inside dist/ exactly as they do in the source tree. `--out <dir>` builds elsewhere (tests).
// Plain JavaScript: it runs where no TypeScript loader is installed.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Builds into `out` (default `<root>/dist`); throws with tsc's output when compilation fails. */
export function build(out = join(ROOT, 'dist')) {
  const tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
  rmSync(out, { recursive: true, force: true });
  const compiled = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', out], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (compiled.status !== 0) throw new Error(`tsc failed:\n${compiled.stdout}${compiled.stderr}`);
  // Everything under src/ that is not TypeScript is data the code reads beside itself.
  cpSync(join(ROOT, 'src'), join(out, 'src'), { recursive: true, filter: (source) => !source.endsWith('.ts') });
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const revision = git('rev-parse', '--short=12', 'HEAD');
  const committed = git('log', '-1', '--format=%cI');
  const manifest = {
    name: pkg.name,
    version: pkg.version,
    private: true,
    type: pkg.type,
    imports: pkg.imports,
    // Read by src/system/build-info.ts: the build's revision and date, since dist/ need not live in a checkout.
    build: { revision: revision ?? 'local', date: (committed ? new Date(committed) : new Date()).toISOString() },
  };
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return out;
}

function git(...args) {
  const result = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const started = Date.now();
  const out = build(values.out ? resolve(values.out) : undefined);
  process.stdout.write(`built ${out} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
