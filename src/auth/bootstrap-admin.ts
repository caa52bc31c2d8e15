// Creates the default admin on first start (upstream needs `ziti controller edge init`; we do it for the operator).
import { randomBytes } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatTimestamp, type Clock } from '../lib/clock.js';
import type { IdGenerators } from '../lib/ids.js';
import { hasDefaultAdmin, insertDefaultAdmin } from '../store/queries/identities.js';
import type { Store } from '../store/store.js';
import { hashPassword } from './password.js';

export interface DefaultAdminOptions {
  store: Store;
  clock: Clock;
  ids: IdGenerators;
  username: string;
  /** Undefined: generate one, which the caller shows the operator once. */
  password: string | undefined;
}

export type DefaultAdminResult = { created: false } | { created: true; identityId: string; generatedPassword?: string };

/** Later starts find the stored admin and change nothing, even when the configured password differs. */
export async function ensureDefaultAdmin(options: DefaultAdminOptions): Promise<DefaultAdminResult> {
  const { store, clock, ids, username } = options;
  if (await store.read(hasDefaultAdmin)) return { created: false };

  const password = options.password ?? randomBytes(18).toString('base64url');
  const generatedPassword = options.password === undefined ? password : undefined;
  const { hash, salt } = await hashPassword(password);
  const now = formatTimestamp(clock());
  const identityId = ids.shortId();
  const admin = { identityId, authenticatorId: ids.shortId(), username, passwordHash: hash, passwordSalt: salt };
  // Instances starting together on an empty database both get here: write transactions run one at a time across
  // instances, so looking again inside ours decides which one creates the admin.
  const created = await store.transaction(async (tx) => {
    if (await hasDefaultAdmin(tx)) return false;
    await insertDefaultAdmin(tx, admin, now);
    return true;
  });
  // (Migration 015's unique index on the default-admin flag backs this up.)
  if (!created) return { created: false };
  return generatedPassword ? { created: true, identityId, generatedPassword } : { created: true, identityId };
}

/** Keeps a generated password where only the operator can read it. */
export function writeAdminPasswordFile(home: string, password: string): string {
  const file = join(home, 'admin-password');
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}
