// A compiled entry point under dist/, built first when dist/ is missing or older than the sources: what `npm
// start` and `npm run migrate:upstream` run with plain node. Plain JavaScript, no TypeScript loader.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build, ROOT } from './build.mjs';

const dist = join(ROOT, 'dist');
const manifest = join(dist, 'package.json');

/** The newest modification time among the sources and the files that shape the build. */
function newestSource(path = join(ROOT, 'src')) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestSource(join(path, name))));
}

/** The path of `relative` (e.g. `src/main.js`) under dist/, after building when needed; `what` names it in the notice. */
export function builtEntry(relative, what) {
  const entry = join(dist, relative);
  const inputs = [join(ROOT, 'package.json'), join(ROOT, 'tsconfig.json'), join(ROOT, 'tsconfig.build.json')];
  const isStale =
    !existsSync(entry) ||
    !existsSync(manifest) ||
    Math.max(newestSource(), ...inputs.map(newestSource)) > statSync(manifest).mtimeMs;
  if (isStale) {
    process.stderr.write(`building ${what} (dist/ is missing or older than src/)…\n`);
    build(dist);
  }
  return entry;
}
