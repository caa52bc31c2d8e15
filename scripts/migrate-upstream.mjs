// `npm run migrate:upstream -- <upstream settings file> --home <new home> [--dry-run]`: moves an upstream v1.1.8
// network (its PKI, settings and database) into a new home (docs/moving-from-upstream.md). Plain JavaScript.
import { pathToFileURL } from 'node:url';
import { builtEntry } from './built-entry.mjs';

await import(pathToFileURL(builtEntry('src/migrate/migrate-main.js', 'the migration')).href);
