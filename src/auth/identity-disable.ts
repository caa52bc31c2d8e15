// The one rule for disabled identities (docs/reference/pki-enrollment-auth.md §5.3): set by an admin or by a lockout,
// for some minutes or until enabled, it refuses every login method and ends the identity's API sessions.

export interface DisabledState {
  disabledAt: string | null;
  disabledUntil: string | null;
}

/** Disabled from `disabledAt` until `disabledUntil`, or indefinitely when there is no end. */
export function isIdentityDisabled(state: DisabledState, now: Date): boolean {
  if (!state.disabledAt) return false;
  return !state.disabledUntil || Date.parse(state.disabledUntil) > now.getTime();
}

/** The state as stored (`disabled_at`, `disabled_until`), for rows read straight from the table. */
export function disabledStateOf(row: { disabled_at?: unknown; disabled_until?: unknown }): DisabledState {
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return { disabledAt: text(row.disabled_at), disabledUntil: text(row.disabled_until) };
}
