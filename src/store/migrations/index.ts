// The numbered migrations, in order. Append only: a migration that has shipped is never edited.
import type { Migration } from './migrate.js';
import { initialSchema } from './001-initial-schema.js';
import { configsAndServices } from './002-configs-services.js';
import { postureChecks } from './003-posture-checks.js';
import { routersSchema } from './004-routers.js';
import { terminatorsSchema } from './005-terminators.js';
import { policiesSchema } from './006-policies.js';
import { identityServiceConfigsSchema } from './007-identity-service-configs.js';
import { enrollmentSchema } from './008-enrollment.js';
import { enrollmentLookups } from './009-enrollment-lookups.js';
import { caRolesAndSessionCertificates } from './010-ca-roles-session-certificates.js';
import { sessionsSchema } from './012-sessions.js';
import { mfaSignersAndLockout } from './013-mfa-signers-lockout.js';
import { identityTraces } from './014-identity-traces.js';
import { uniquenessConstraints } from './015-uniqueness-constraints.js';
import { clusterSchema } from './016-cluster.js';
import { integerPairKeys } from './017-integer-pair-keys.js';
import { routerPresence } from './018-router-presence.js';
import { routerSyncFeed } from './019-router-sync-feed.js';
import { terminatorPeerData } from './020-terminator-peer-data.js';
import { fabricLinksAndInbox } from './021-fabric-links-inbox.js';
import { fabricCircuits } from './022-fabric-circuits.js';
import { entityChanges } from './023-entity-changes.js';
import { terminatorSavedPrecedence } from './024-terminator-saved-precedence.js';
import { liveRouterPresence } from './025-live-router-presence.js';
import { liveRouterPresenceByTry } from './026-live-router-presence-by-try.js';

export const migrations: readonly Migration[] = [
  initialSchema,
  configsAndServices,
  postureChecks,
  routersSchema,
  terminatorsSchema,
  policiesSchema,
  identityServiceConfigsSchema,
  enrollmentSchema,
  enrollmentLookups,
  caRolesAndSessionCertificates,
  sessionsSchema,
  mfaSignersAndLockout,
  identityTraces,
  uniquenessConstraints,
  clusterSchema,
  integerPairKeys,
  routerPresence,
  routerSyncFeed,
  terminatorPeerData,
  fabricLinksAndInbox,
  fabricCircuits,
  entityChanges,
  terminatorSavedPrecedence,
  liveRouterPresence,
  liveRouterPresenceByTry,
];
