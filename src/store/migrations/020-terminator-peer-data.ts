// Terminators made by routers (issue 23) carry the hosting SDK's static peer data (its public key, for one),
// which every circuit to them hands to the dialler: kept as JSON {key: base64 bytes}.
import type { Migration } from './migrate.js';

export const terminatorPeerData: Migration = {
  version: 20,
  name: 'terminator peer data',
  statements: [`ALTER TABLE terminators ADD COLUMN peer_data TEXT`],
};
