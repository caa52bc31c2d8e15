// A quiesced router's terminators (upstream RouterManager ApplyQuiesce): each goes to precedence `failed`, its own
// kept in `saved_precedence` until the router is dequiesced (ApplyDequiesce puts it back). 024: 023 is taken by the
// entity-change log on another branch.
import type { Migration } from './migrate.js';

export const terminatorSavedPrecedence: Migration = {
  version: 24,
  name: 'terminator saved precedence',
  statements: [`ALTER TABLE terminators ADD COLUMN saved_precedence TEXT`],
};
