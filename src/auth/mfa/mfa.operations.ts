// TOTP MFA of the caller's identity (docs/reference/pki-enrollment-auth.md §6.2) on both APIs, `POST
// /authenticate/mfa`, and the admin's removal. Which operations a partially authenticated session may use is upstream's
// list: status, enroll, verify, QR code and authenticate/mfa; removing MFA and its recovery codes need a fully
// authenticated session.
import QRCode from 'qrcode';
import { ApiError } from '../../errors/api-error.js';
import { emptyEnvelope, envelope } from '../../http/envelope.js';
import type { OperationContext, OperationHandler, OperationShape, OperationTable } from '../../http/operation.js';
import type { SessionCaller } from '../../http/request-context.js';
import { named, namesOf } from '../../store/queries/references.js';
import type { Db } from '../../store/store.js';
import { requireEntity } from '../../crud/entity-writes.js';
import { identity } from '../../entities/identity/identity.definition.js';
import { provisioningUrl } from './totp.js';
import {
  completeSessionMfa,
  createMfa,
  deleteMfaOf,
  findMfa,
  markMfaVerified,
  replaceRecoveryCodes,
  useMfaCode,
  type CodeKind,
  type MfaRecord,
} from './mfa-records.js';

const PATH = 'current-identity/mfa';
/** Every operation here but the admin's is the caller's own: its session is present. */
type MfaContext = OperationContext<OperationShape, SessionCaller>;
const identityOf = (context: MfaContext) => context.caller.session.identityId;

async function requireMfa(db: Db, context: MfaContext, want: 'any' | 'verified' | 'unverified'): Promise<MfaRecord> {
  const record = await findMfa(db, identityOf(context));
  if (!record || (want === 'verified' && !record.isVerified) || (want === 'unverified' && record.isVerified))
    throw new ApiError('NOT_FOUND');
  return record;
}

async function provisioningUrlOf(db: Db, context: MfaContext, record: MfaRecord): Promise<string> {
  const name = (await namesOf(db, named.identity, [record.identityId])).get(record.identityId);
  return provisioningUrl(context.deps.settings.totpIssuer, name ?? '', record.secret);
}

/**
 * Checks a code against the caller's MFA and, in the same transaction, does what it unlocks. Failures count against
 * the identity and the source address like failed logins (429 past the limit). The limits are read and the failure
 * counted in that write transaction, which writers on every instance take in turn, so racing attempts cannot guess
 * past them; the check is cheap, so nothing waits on another attempt's expensive work.
 */
async function proveCode(
  context: MfaContext,
  code: string,
  kind: CodeKind,
  unlock: (tx: Db, record: MfaRecord) => Promise<void>,
): Promise<void> {
  const { deps } = context;
  const throttle = deps.loginThrottle;
  const keys = throttle.mfaKeys(identityOf(context), context.caller.ip);
  const proven = await deps.store.transaction(async (tx) => {
    await throttle.admit(keys, context.reply, tx);
    const record = await findMfa(tx, identityOf(context));
    if (!record || !(await useMfaCode(tx, deps, record, code, kind))) {
      await throttle.count(tx, keys);
      return false;
    }
    await unlock(tx, record);
    await throttle.clear(tx, keys[0].key);
    return true;
  });
  if (!proven) throw new ApiError('MFA_INVALID_TOKEN');
}

/** The C SDK sends the code of DELETE and GET recovery-codes in this header. */
const headerCodeOf = (
  context: OperationContext<{ headers: { 'mfa-validation-code'?: string } } & OperationShape>,
): string => context.headers['mfa-validation-code'] ?? '';

function mfaLinks(record: MfaRecord): Record<string, { href: string }> {
  const links: Record<string, string> = { 'current-identity': './current-identity', self: `./${PATH}` };
  if (record.isVerified) links['recovery-codes'] = `./${PATH}/recovery-codes`;
  else Object.assign(links, { qr: `./${PATH}/qr-code`, verify: `./${PATH}/verify` });
  return Object.fromEntries(Object.entries(links).map(([name, href]) => [name, { href }]));
}

const baseOf = (record: MfaRecord, links: Record<string, { href: string }>) => ({
  _links: links,
  createdAt: record.createdAt,
  id: record.id,
  tags: record.tags,
  updatedAt: record.updatedAt,
});

/** The secret (in the URL) and the recovery codes show only until the enrollment is verified. */
const detailMfa: OperationHandler<'detailMfa'> = {
  access: 'partial',
  async handle(context) {
    const data = await context.deps.store.read(async (db) => {
      const record = await requireMfa(db, context, 'any');
      if (record.isVerified) return { ...baseOf(record, mfaLinks(record)), isVerified: true, recoveryCodes: null };
      return {
        ...baseOf(record, mfaLinks(record)),
        isVerified: false,
        provisioningUrl: await provisioningUrlOf(db, context, record),
        recoveryCodes: record.recoveryCodes,
      };
    });
    return { status: 200, json: envelope(data) };
  },
};

const enrollMfa: OperationHandler<'enrollMfa'> = {
  access: 'partial',
  async handle(context) {
    const { deps } = context;
    const id = await deps.store.transaction((tx) => createMfa(tx, deps, identityOf(context)));
    // The record is reached at its fixed path, not by id.
    return { status: 201, json: envelope({ _links: { self: { href: `./${PATH}` } }, id }) };
  },
};

/** TOTP only (a recovery code cannot complete an enrollment); the current session counts as having passed MFA. */
const verifyMfa: OperationHandler<'verifyMfa'> = {
  access: 'partial',
  async handle(context) {
    await context.deps.store.read((db) => requireMfa(db, context, 'unverified'));
    await proveCode(context, context.body.code, 'totp', async (tx, record) => {
      if (record.isVerified) throw new ApiError('NOT_FOUND');
      await markMfaVerified(tx, context.deps, record);
      await completeSessionMfa(tx, context.deps, context.caller.session.apiSessionId);
    });
    await context.deps.posture.postureChanged(identityOf(context));
    return { status: 200, json: emptyEnvelope() };
  },
};

/** 256 × 256 PNG, error correction M, as upstream's go-qrcode; only while the enrollment is unverified. */
const detailMfaQrCode: OperationHandler<'detailMfaQrCode'> = {
  access: 'partial',
  async handle(context) {
    const url = await context.deps.store.read(async (db) =>
      provisioningUrlOf(db, context, await requireMfa(db, context, 'unverified')),
    );
    const png = await QRCode.toBuffer(url, { type: 'png', errorCorrectionLevel: 'M', width: 256, margin: 4 });
    return { status: 200, raw: png, contentType: 'image/png' };
  },
};

/** A verified enrollment needs a code (TOTP or recovery) in `mfa-validation-code`; an unverified one goes without. */
const deleteMfa: OperationHandler<'deleteMfa'> = {
  access: 'authenticated',
  async handle(context) {
    const { deps } = context;
    const record = await deps.store.read((db) => requireMfa(db, context, 'any'));
    const remove = async (tx: Db) => void (await deleteMfaOf(tx, identityOf(context)));
    if (record.isVerified) await proveCode(context, headerCodeOf(context), 'totpOrRecovery', remove);
    else await deps.store.transaction(remove);
    await deps.posture.postureChanged(identityOf(context));
    return { status: 200, json: emptyEnvelope() };
  },
};

/** Bodies of GET requests are never read by the framework; this one may carry `{"code"}` (upstream reads it). */
async function getBodyCodeOf(context: OperationContext): Promise<string> {
  const raw = context.request.raw;
  if (raw.readableEnded || !String(context.request.headers['content-type'] ?? '').startsWith('application/json'))
    return '';
  let text = '';
  // A request stream without an encoding yields Buffers; Node's types leave its chunks untyped.
  for await (const chunk of raw as AsyncIterable<Buffer>) {
    text += chunk.toString('utf8');
    if (text.length > GET_BODY_LIMIT) throw ApiError.withMessage('COULD_NOT_PARSE_BODY', 'request body is too large');
  }
  try {
    const parsed: unknown = JSON.parse(text || '{}');
    const code = typeof parsed === 'object' && parsed !== null && 'code' in parsed ? parsed.code : undefined;
    return typeof code === 'string' ? code : '';
  } catch {
    throw ApiError.withMessage('COULD_NOT_PARSE_BODY', 'the body is not JSON');
  }
}
const GET_BODY_LIMIT = 1024;

/** Shown again only against a current TOTP code, from the body or the `mfa-validation-code` header (C SDK). */
const detailMfaRecoveryCodes: OperationHandler<'detailMfaRecoveryCodes'> = {
  access: 'authenticated',
  async handle(context) {
    const { deps } = context;
    await deps.store.read((db) => requireMfa(db, context, 'verified'));
    const code = context.body?.code || (await getBodyCodeOf(context)) || headerCodeOf(context);
    if (code === '') throw new ApiError('MFA_INVALID_TOKEN');
    let data: Record<string, unknown> = {};
    await proveCode(context, code, 'totp', (_tx, record) => {
      data = { ...baseOf(record, mfaLinks(record)), recoveryCodes: record.recoveryCodes };
      return Promise.resolve();
    });
    return { status: 200, json: envelope(data) };
  },
};

const createMfaRecoveryCodes: OperationHandler<'createMfaRecoveryCodes'> = {
  access: 'authenticated',
  async handle(context) {
    await context.deps.store.read((db) => requireMfa(db, context, 'verified'));
    await proveCode(context, context.body.code, 'totpOrRecovery', (tx, record) =>
      replaceRecoveryCodes(tx, context.deps, record),
    );
    return { status: 200, json: emptyEnvelope() };
  },
};

/** Recovery codes are checked first (and consumed), then TOTP; any enrollment counts, as upstream. */
const authenticateMfa: OperationHandler<'authenticateMfa'> = {
  access: 'partial',
  async handle(context) {
    const record = await context.deps.store.read((db) => findMfa(db, identityOf(context)));
    if (!record) throw new ApiError('MFA_NOT_ENROLLED');
    await proveCode(context, context.body.code, 'totpOrRecovery', (tx) =>
      completeSessionMfa(tx, context.deps, context.caller.session.apiSessionId),
    );
    await context.deps.posture.postureChanged(identityOf(context));
    return { status: 200, json: emptyEnvelope() };
  },
};

/** An admin removes an identity's MFA, verified or not, without a code (a lost device). */
const removeIdentityMfa: OperationHandler<'removeIdentityMfa'> = {
  access: 'admin',
  async handle({ deps, params }) {
    const { id } = params;
    await deps.store.transaction(async (tx) => {
      await requireEntity(tx, identity, id);
      await deleteMfaOf(tx, id);
    });
    await deps.posture.postureChanged(id);
    return { status: 200, json: emptyEnvelope() };
  },
};

/** Served by both APIs. */
export const currentIdentityMfaOperations: OperationTable<'client' | 'management'> = {
  detailMfa,
  enrollMfa,
  verifyMfa,
  detailMfaQrCode,
  deleteMfa,
  detailMfaRecoveryCodes,
  createMfaRecoveryCodes,
  authenticateMfa,
};

export const identityMfaOperations: OperationTable<'management'> = { removeIdentityMfa };
