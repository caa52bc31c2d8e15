// Verifies JWTs from external JWT signers (docs/reference/pki-enrollment-auth.md §8.3–8.4): the signer found by exact
// issuer and enabled, the signature checked against its certificate or its JWKS (fetched on demand, refreshed on an
// unknown `kid`), issuer, audience, expiry and not-before, then the identity named by the signer's claim.
import { X509Certificate, type KeyObject } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, type JSONWebKeySet, type JWK } from 'jose';
import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.js';
import { signerBy, type SignerRecord } from '../../store/queries/external-jwt-signers.js';
import { identityIdBy } from '../../store/queries/identities.js';
import type { Db, Store } from '../../store/store.js';
import { defaultJwksLimits, fetchJwks, type JwksFetchLimits } from './jwks-fetch.js';
import { MAX_BEARER_TOKENS } from '../../lib/bearer-tokens.js';

/** Asymmetric algorithms only: `none` and HMAC (a shared secret the controller would have to hold) never verify. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/** An unknown `kid` refetches the JWKS at most this often (upstream's JwksQueryTimeout). */
const REFETCH_COOLDOWN_MS = 1_000;
/** Known keys are refetched after this long even without an unknown `kid`, so a rotated key takes effect. */
const JWKS_MAX_AGE_MS = 10 * 60_000;

export interface SignerRow {
  id: string;
  updatedAt: string;
  enabled: boolean;
  issuer: string;
  audience: string | null;
  certPem: string | null;
  jwksEndpoint: string | null;
  kid: string | null;
  fingerprint: string | null;
  claimsProperty: string;
  useExternalId: boolean;
  externalAuthUrl: string | null;
}

export interface VerifiedJwt {
  signer: SignerRow;
  identityId: string;
}

export interface VerifyOptions {
  /** Secondary use: only this signer's JWTs count, and only for this identity. */
  requiredSignerId?: string;
  identityId?: string;
}

export function toSignerRow(row: SignerRecord): SignerRow {
  return {
    id: row.id,
    updatedAt: row.updated_at,
    enabled: row.enabled === 1,
    issuer: row.issuer,
    audience: row.audience,
    certPem: row.cert_pem,
    jwksEndpoint: row.jwks_endpoint,
    kid: row.kid,
    fingerprint: row.fingerprint,
    claimsProperty: row.claims_property || 'sub',
    useExternalId: row.use_external_id === 1,
    externalAuthUrl: row.external_auth_url,
  };
}

interface JwksEntry {
  /** The signer state the keys belong to: a changed signer starts afresh. */
  version: string;
  keys: JSONWebKeySet | undefined;
  fetchedAt: number;
  pending: Promise<void> | undefined;
}

export interface ExternalJwtVerifierOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  limits?: JwksFetchLimits;
}

export class ExternalJwtVerifier {
  readonly #options: ExternalJwtVerifierOptions;
  readonly #jwks = new Map<string, JwksEntry>();

  constructor(options: ExternalJwtVerifierOptions) {
    this.#options = options;
  }

  async signerById(id: string): Promise<SignerRow | undefined> {
    const row = await this.#options.store.read((db) => signerBy(db, 'id', id));
    return row ? toSignerRow(row) : undefined;
  }

  /** The first candidate that verifies, with the identity it names; undefined when none does. */
  async verify(tokens: readonly string[], options: VerifyOptions = {}): Promise<VerifiedJwt | undefined> {
    for (const token of tokens.slice(0, MAX_BEARER_TOKENS)) {
      try {
        const verified = await this.#verifyOne(token, options);
        if (verified) return verified;
      } catch (error) {
        // A bad token is a refused login, not a fault; the reason helps an operator, the token itself is never logged.
        this.#options.logger.debug({ reason: reasonOf(error) }, 'external JWT refused');
      }
    }
    return undefined;
  }

  async #verifyOne(token: string, options: VerifyOptions): Promise<VerifiedJwt | undefined> {
    const header = decodeProtectedHeader(token);
    const issuer = decodeJwt(token).iss;
    if (typeof header.kid !== 'string' || typeof header.alg !== 'string' || typeof issuer !== 'string' || issuer === '')
      return undefined;
    const { store, clock } = this.#options;
    const signer = await store.read(async (db) => {
      const row = await signerBy(db, 'issuer', issuer);
      return row ? toSignerRow(row) : undefined;
    });
    if (!signer?.enabled || (options.requiredSignerId !== undefined && signer.id !== options.requiredSignerId))
      return undefined;
    if (signer.audience === null) return undefined;
    const key = await this.#keyFor(signer, header.kid, header.alg);
    if (!key) return undefined;
    const { payload } = await jwtVerify(token, key, {
      algorithms: ALGORITHMS,
      issuer: signer.issuer,
      audience: signer.audience,
      currentDate: clock(),
    });
    const claim = payload[signer.claimsProperty];
    if (typeof claim !== 'string' || claim === '') return undefined;
    const identityId = await store.read((db) => identityNamedBy(db, signer, claim));
    if (!identityId || (options.identityId !== undefined && identityId !== options.identityId)) return undefined;
    return { signer, identityId };
  }

  async #keyFor(
    signer: SignerRow,
    kid: string,
    alg: string,
  ): Promise<KeyObject | Awaited<ReturnType<typeof importJWK>> | undefined> {
    if (signer.certPem) {
      // A certificate signer has one key, under its kid or, without one, the certificate's fingerprint.
      return kid === (signer.kid ?? signer.fingerprint) ? new X509Certificate(signer.certPem).publicKey : undefined;
    }
    if (!signer.jwksEndpoint) return undefined;
    let jwk = await this.#jwk(signer, kid, false);
    jwk ??= await this.#jwk(signer, kid, true);
    if (!jwk) return undefined;
    // As upstream: the first certificate of `x5c` when present, else the key parameters.
    const firstCertificate = jwk.x5c?.[0];
    if (firstCertificate) return new X509Certificate(Buffer.from(firstCertificate, 'base64')).publicKey;
    return importJWK(jwk, jwk.alg ?? alg);
  }

  async #jwk(signer: SignerRow, kid: string, refresh: boolean): Promise<JWK | undefined> {
    const version = `${signer.updatedAt} ${signer.jwksEndpoint}`;
    let entry = this.#jwks.get(signer.id);
    if (!entry || entry.version !== version) {
      entry = { version, keys: undefined, fetchedAt: 0, pending: undefined };
      this.#jwks.set(signer.id, entry);
    }
    const now = this.#options.clock().getTime();
    const stale = entry.keys === undefined || now - entry.fetchedAt >= JWKS_MAX_AGE_MS;
    const mayRefetch = now - entry.fetchedAt >= REFETCH_COOLDOWN_MS;
    if ((stale || refresh) && mayRefetch) await this.#fetch(signer, entry);
    return entry.keys?.keys.find((key) => key.kid === kid);
  }

  /** One fetch at a time per signer; concurrent logins share it. */
  async #fetch(signer: SignerRow, entry: JwksEntry): Promise<void> {
    entry.pending ??= (async () => {
      try {
        entry.keys = await fetchJwks(signer.jwksEndpoint!, this.#options.limits ?? defaultJwksLimits);
      } catch (error) {
        this.#options.logger.warn(
          { signerId: signer.id, reason: reasonOf(error) },
          'could not fetch external JWT signer keys',
        );
      } finally {
        entry.fetchedAt = this.#options.clock().getTime();
        entry.pending = undefined;
      }
    })();
    await entry.pending;
  }
}

function identityNamedBy(db: Db, signer: SignerRow, claim: string): Promise<string | undefined> {
  return identityIdBy(db, signer.useExternalId ? 'externalId' : 'id', claim);
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
