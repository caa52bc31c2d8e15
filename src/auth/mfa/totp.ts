// TOTP (RFC 6238) as upstream's dgoogauth configures it: HMAC-SHA1, 6 digits, 30-second steps, window size 5
// (steps t−2 … t+2), 10-byte secrets in unpadded base32; and the 20 single-use recovery codes.
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

const DIGITS = 6;
const PERIOD_SECONDS = 30;
/** dgoogauth's WindowSize 5 (ziti controller/model/mfa_manager.go WindowSizeTOTP): two steps either side. */
const WINDOW = 2;
const RECOVERY_CODE_COUNT = 20;

/** A new shared secret: 10 random bytes, base32 (16 characters, no padding). */
export function newTotpSecret(): string {
  return new Secret({ buffer: new Uint8Array(randomBytes(10)).buffer }).base32;
}

/**
 * Upstream's `otpauth://totp/<issuer>:<name>?issuer=<issuer>&secret=<secret>` (dgoogauth ProvisionURIWithIssuer: no
 * algorithm, digits or period parameters). Unlike upstream the label is escaped, so a name with spaces or `#`
 * still yields a URL authenticator apps can read; ordinary names come out byte for byte the same.
 */
export function provisioningUrl(issuer: string, accountName: string, secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(accountName)}`;
  return `otpauth://totp/${label}?issuer=${goQueryEscape(issuer)}&secret=${goQueryEscape(secret)}`;
}

/** Go's url.QueryEscape: everything but `A-Za-z0-9-_.~` escaped, spaces as `+`. */
function goQueryEscape(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** The time step of an instant (the RFC 6238 counter). */
export function totpStep(now: Date): number {
  return Math.floor(now.getTime() / 1000 / PERIOD_SECONDS);
}

/**
 * The step a code matches within the window, or undefined. Only six decimal digits can match (dgoogauth refuses
 * anything else), and a step at or before `usedStep` is refused: a code works once (RFC 6238 §5.2; upstream has no
 * replay protection).
 */
export function matchTotp(secret: string, code: string, now: Date, usedStep: number): number | undefined {
  if (!/^[0-9]{6}$/.test(code)) return undefined;
  const totp = new TOTP({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD_SECONDS,
  });
  const delta = totp.validate({ token: code, timestamp: now.getTime(), window: WINDOW });
  if (delta === null) return undefined;
  const step = totpStep(now) + delta;
  return step > usedStep ? step : undefined;
}

/** Upstream's recovery codes: the first six characters of the base32 of eight random bytes, twenty of them, sorted. */
export function newRecoveryCodes(): string[] {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () =>
    new Secret({ buffer: new Uint8Array(randomBytes(8)).buffer }).base32.slice(0, 6),
  );
  return codes.sort();
}
