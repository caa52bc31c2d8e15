// The numbered migrations, in order. Append only: a migration that has shipped is never edited.
import type { Migration } from './migrate.js';
import { initialSchema } from './001-initial-schema.js';

export const migrations: readonly Migration[] = [initialSchema];
