// Posture checks with their role attributes, and the posture check types upstream bootstraps.
import type { Migration } from './migrate.js';
import { baseColumns as base } from './schema-parts.js';

const epoch = '2020-01-01T00:00:00.000Z';

type OperatingSystems = { type: string; versions: string[] }[];

/**
 * Upstream's rows (`db/migration_initialize.go` addPostureCheckTypes, plus PROCESS_MULTI from a later migration)
 * as they read back from bolt: OS entries are buckets keyed by type and versions are keys of a list bucket, so both
 * come out byte-sorted (`Windows` before `iOS`, `10` before `7`), not in the order upstream wrote them.
 */
const windows = { type: 'Windows', versions: ['10', '2000', '7', '8', 'Vista'] };
const linux = { type: 'Linux', versions: ['4.14', '4.19', '5.4', '5.9'] };
const android = { type: 'Android', versions: ['10', '11', '9'] };
const macOS = { type: 'macOS', versions: ['10.15', '11.0'] };
const iOS = { type: 'iOS', versions: ['11', '12'] };
const anyVersion = (os: { type: string }) => ({ type: os.type, versions: [] });

const postureCheckTypes: [id: string, name: string, operatingSystems: OperatingSystems][] = [
  ['OS', 'Operating System Check', [android, linux, windows, iOS, macOS]],
  ['PROCESS', 'Process Check', [linux, windows, macOS]],
  ['DOMAIN', 'Windows Domain Check', [windows]],
  ['MAC', 'MAC Address Check', [android, linux, windows, macOS]],
  ['PROCESS_MULTI', 'Process Multi Check', [linux, windows, macOS].map(anyVersion)],
];

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

export const postureChecks: Migration = {
  version: 3,
  name: 'posture checks',
  statements: [
    `CREATE TABLE posture_check_types (${base},
      name TEXT NOT NULL UNIQUE,
      operating_systems TEXT NOT NULL)`,
    `INSERT INTO posture_check_types (id, created_at, updated_at, name, operating_systems) VALUES
      ${postureCheckTypes.map(([id, name, systems]) => `(${quote(id)}, '${epoch}', '${epoch}', ${quote(name)}, ${quote(JSON.stringify(systems))})`).join(',\n      ')}`,

    // No reference to posture_check_types: MFA is a valid type without a row. The type-specific fields are one
    // JSON document; MFA's two public symbols also get columns (NULL for other types) so filters can use them.
    `CREATE TABLE posture_checks (${base},
      name TEXT NOT NULL UNIQUE,
      type_id TEXT NOT NULL,
      version INTEGER NOT NULL DEFAULT 1,
      role_attributes TEXT,
      details TEXT NOT NULL DEFAULT '{}',
      prompt_on_wake INTEGER,
      prompt_on_unlock INTEGER)`,
    `CREATE TABLE posture_check_role_attributes (
      entity_id TEXT NOT NULL REFERENCES posture_checks(id) ON DELETE CASCADE,
      value TEXT NOT NULL,
      PRIMARY KEY (entity_id, value))`,
    `CREATE INDEX posture_check_role_attributes_value ON posture_check_role_attributes(value, entity_id)`,
    `CREATE INDEX posture_checks_type ON posture_checks(type_id)`,
  ],
};
