// `npm start`: runs the compiled controller with plain node, building it first when dist/ is missing or older
// than the sources, so `npm ci && npm start` works on a fresh clone. Plain JavaScript, no TypeScript loader.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, ROOT } from './build.mjs';

const dist = join(ROOT, 'dist');
const entry = join(dist, 'src', 'main.js');
const manifest = join(dist, 'package.json');

/** The newest modification time among the sources and the files that shape the build. */
function newestSource(path = join(ROOT, 'src')) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestSource(join(path, name))));
}

const inputs = [join(ROOT, 'package.json'), join(ROOT, 'tsconfig.json'), join(ROOT, 'tsconfig.build.json')];
const isStale =
  !existsSync(entry) ||
  !existsSync(manifest) ||
  Math.max(newestSource(), ...inputs.map(newestSource)) > statSync(manifest).mtimeMs;
if (isStale) {
  process.stderr.write('building the controller (dist/ is missing or older than src/)…\n');
  build(dist);
}
// main.js reads its arguments from process.argv after the script, as when started as `node dist/src/main.js`.
await import(pathToFileURL(entry).href);
