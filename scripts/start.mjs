// `npm start`: runs the compiled controller with plain node, building it first when dist/ is missing or older
// than the sources, so `npm ci && npm start` works on a fresh clone. Plain JavaScript, no TypeScript loader.
import { pathToFileURL } from 'node:url';
import { builtEntry } from './built-entry.mjs';

// main.js reads its arguments from process.argv after the script, as when started as `node dist/src/main.js`.
await import(pathToFileURL(builtEntry('src/main.js', 'the controller')).href);
