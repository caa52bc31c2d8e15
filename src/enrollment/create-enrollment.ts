// Enrollment records (one-time token + signed JWT) for identities and routers, made in the caller's transaction.
import { ApiError } from '../errors/api-error.js';
import { formatTimestamp, type Clock } from '../lib/clock.js';
import { goTime } from '../lib/go-format.js';
import type { IdGenerators } from '../lib/ids.js';
import type { Pki } from '../pki/ensure-pki.js';
import type { Settings } from '../settings/settings.schema.js';
import { isUniqueViolation, type Db, type Store } from '../store/store.js';
import { signEnrollmentJwt, type EnrollmentMethod } from './enrollment-jwt.js';
import { recordableEntity, recordedWrite } from '../crud/recorded-write.js';
import {
  deleteEnrollments,
  enrollmentsOfIdentity,
  insertEnrollment,
  isUsernameTaken,
  type EnrollmentRecord,
} from '../store/queries/enrollments.js';

/**
 * Upstream's `edge.enrollment.edgeIdentity.duration` default; identities and routers both use it
 * (docs/reference/pki-enrollment-auth.md §2.2).
 */
export const DEFAULT_ENROLLMENT_LIFETIME_MS = 180 * 60_000;

export interface NewEnrollment {
  method: EnrollmentMethod;
  /** Exactly one of identityId / routerId: the JWT's `sub`. */
  identityId?: string;
  routerId?: string;
  /** ottca: the third-party CA the client's certificate must come from. */
  caId?: string;
  /** updb: the username the new password authenticator gets. */
  username?: string;
  expiresAt: Date;
  /**
   * Default: a shortid, as upstream gives enrollments made with an identity or router (`POST /enrollments` uses
   * base62).
   */
  id?: string;
}

/** A future instant from a validated date-time; now or earlier → 400 on `expiresAt` with the caller's reason. */
export function futureInstant(text: string, now: Date, reason: string): Date {
  const at = new Date(Date.parse(text));
  // The value as upstream's cause shows it: the parsed instant in Go's time format.
  if (at.getTime() <= now.getTime()) throw ApiError.invalidField('expiresAt', reason, goTime(at));
  return at;
}

/**
 * The JWT is signed with the controller's key for its advertised address; the store tells a unique-name refusal apart.
 */
export interface EnrollmentDeps {
  pki: Pki;
  settings: Settings;
  ids: IdGenerators;
  clock: Clock;
  store: Store;
}

export async function createEnrollment(tx: Db, deps: EnrollmentDeps, input: NewEnrollment): Promise<EnrollmentRecord> {
  const subject = input.identityId ?? input.routerId;
  if (subject === undefined) throw new Error('an enrollment needs an identity or a router');
  const token = deps.ids.token();
  const jwt = await signEnrollmentJwt(deps.pki, deps.settings, {
    subject,
    token,
    method: input.method,
    expiresAt: input.expiresAt,
  });
  const record: EnrollmentRecord = {
    id: input.id ?? deps.ids.shortId(),
    method: input.method,
    token,
    expiresAt: formatTimestamp(input.expiresAt),
    identityId: input.identityId ?? null,
    routerId: input.routerId ?? null,
    caId: input.caId ?? null,
    username: input.username ?? null,
    jwt,
  };
  // Recorded as upstream's enrollment store records it, whether made alone or with its identity or router.
  await recordedWrite(tx, recordableEntity('enrollment'), record.id, () =>
    insertEnrollment(tx, record, formatTimestamp(deps.clock())).catch((error: unknown) => {
      // Migration 015's unique (identity_id, method) backs makeRoomForEnrollment against a concurrent writer.
      if (isUniqueViolation(deps.store, error, 'enrollmentMethod')) throw enrollmentExists(input.method);
      throw error;
    }),
  );
  return record;
}

const enrollmentExists = (method: EnrollmentMethod) =>
  new ApiError('ENROLLMENT_EXISTS', { field: 'method', reason: 'enrollment of same method exists', value: method });

/**
 * One outstanding enrollment per method per identity: a live one refuses the new one (409 ENROLLMENT_EXISTS, cause
 * as upstream), an expired one is deleted to make room. Upstream counts expired ones too, but it never expires
 * ott/ottca/updb tokens; we do, so an expired token must not block its replacement.
 */
export async function makeRoomForEnrollment(
  tx: Db,
  identityId: string,
  method: EnrollmentMethod,
  now: Date,
): Promise<void> {
  const existing = await enrollmentsOfIdentity(tx, identityId, method);
  if (existing.some((row) => Date.parse(row.expiresAt) > now.getTime())) {
    throw enrollmentExists(method);
  }
  for (const row of existing)
    await recordedWrite(tx, recordableEntity('enrollment'), row.id, () => deleteEnrollments(tx, [row.id]));
}

/**
 * Usernames are unique (quirk Q18: upstream does not enforce it), so a updb enrollment must not promise one that a
 * password authenticator or another live updb enrollment already holds. `field` names the body field.
 */
export async function requireUnusedUsername(tx: Db, username: string, field: string, now: Date): Promise<void> {
  if (await isUsernameTaken(tx, username, formatTimestamp(now)))
    throw ApiError.invalidField(field, 'username is already in use', username);
}
