// Uniqueness the rules check before they insert, also held by the database, so two writers (requests of one
// instance, or several instances on one PostgreSQL) cannot both pass the check and both insert. The rules keep
// their friendly errors; a refusal by these indexes maps to the same error (authenticator.rules.ts uniqueError,
// createEnrollment). Names, usernames of password authenticators, certificate fingerprints and one MFA record per
// identity were unique already (migrations 001–013).
import type { Migration } from './migrate.js';

export const uniquenessConstraints: Migration = {
  version: 15,
  name: 'one authenticator and one outstanding enrollment per method per identity, one default admin',
  statements: [
    // MAX_AUTHENTICATOR_METHODS_REACHED; it also serves every lookup of an identity's authenticators.
    `CREATE UNIQUE INDEX authenticators_identity_method ON authenticators(identity_id, method)`,
    `DROP INDEX authenticators_identity`,
    // ENROLLMENT_EXISTS (an expired one is deleted before its replacement is inserted). Router enrollments have no
    // identity: NULLs are distinct in a unique index on both databases, so they never collide here.
    `CREATE UNIQUE INDEX enrollments_identity_method ON enrollments(identity_id, method)`,
    `DROP INDEX enrollments_identity`,
    // One default admin: instances starting together on an empty database both look, one insert wins
    // (ensureDefaultAdmin takes the refusal as "another instance created it").
    `CREATE UNIQUE INDEX identities_default_admin ON identities(is_default_admin) WHERE is_default_admin = 1`,
  ],
};
