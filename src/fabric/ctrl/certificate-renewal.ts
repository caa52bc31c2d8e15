// A router renewing its certificates over its control channel (upstream handler_edge_ctrl/extend_enrollment*.go,
// model/edge_router_manager.go ExtendEnrollmentWithVerify): its certificate checker sends new CSRs 7 days before the
// earlier of its client and server certificates expires (or at once with `ziti router run --extend`); the answer is
// a new pair signed as enrollment signs them (enrollment/methods/enroll-router.ts: a year, the CSRs' SANs). With
// verification, which every v1.1.8 router asks for, the new client certificate waits beside the old one, which keeps
// working, until the router echoes it back (EnrollmentExtendRouterVerifyRequest); then it is the router's, and the
// old one is refused at the next connect. The channel it came over stays open: it authenticated when it connected.
import { create } from '@bufbuild/protobuf';
import { ApiError } from '../../errors/api-error.js';
import { formatTimestamp, type Clock } from '../../lib/clock.js';
import type { Pki } from '../../pki/ensure-pki.js';
import {
  issueRouterCertificates,
  readExtensionCsrs,
  recordedRouterWrite,
  routerRenewalChange,
  storeRouterCertificate,
} from '../../enrollment/methods/enroll-router.js';
import {
  promoteUnverifiedRouterCertificate,
  routerCertificates,
  setUnverifiedRouterCertificate,
} from '../../store/queries/routers.js';
import type { Store } from '../../store/store.js';
import { toBinary } from '@bufbuild/protobuf';
import {
  ContentType as EdgeType,
  EnrollmentCertsResponseSchema,
  type EnrollmentExtendRouterRequest,
  type EnrollmentExtendRouterVerifyRequest,
} from '../messages/gen/edge_ctrl_pb.js';
import { edgeErrorProtobuf, type ControlChannel, type FabricLogger, type Outgoing } from './router-channel.js';
import { INTERNAL_EDGE_ERROR, RouterRequestError } from './router-request-error.js';

export interface CertificateRenewalOptions {
  store: Store;
  pki: Pki;
  clock: Clock;
  logger: FabricLogger;
  /** The router's certificate is now `fingerprint`: the channel it holds is not dropped as re-enrolled. */
  renewed: (routerId: string, fingerprint: string) => void;
}

/** A verification refused with upstream's text code (extend_enrollment_verify.go). */
const refused = (code: string, message: string) => new RouterRequestError(message, INTERNAL_EDGE_ERROR, code);

export class CertificateRenewal {
  readonly #options: CertificateRenewalOptions;

  constructor(options: CertificateRenewalOptions) {
    this.#options = options;
  }

  /**
   * EnrollmentExtendRouterRequest (20302): the new pair goes out as EnrollmentCertsResponse (20301), a message of its
   * own as upstream sends it (the router handles it by type, not as a reply). A failure has no answer upstream either.
   */
  async extend(routerId: string, channel: ControlChannel, request: EnrollmentExtendRouterRequest): Promise<void> {
    const { store, pki, clock, logger, renewed } = this.#options;
    const current = await store.read((db) => routerCertificates(db, routerId));
    if (!current?.fingerprint) throw new RouterRequestError('router not found or not enrolled');
    const { client, server } = await issueRouterCertificates(
      { clock, pki },
      routerId,
      await readCsrs(request.clientCertCsr, request.serverCertCsr),
    ).catch(csrRefusal);
    const at = formatTimestamp(clock());
    const issued = { certPem: client.certPem, fingerprint: client.fingerprint };
    await store.transaction(async (tx) => {
      if (request.requireVerification)
        await recordedRouterWrite(
          tx,
          routerId,
          () => setUnverifiedRouterCertificate(tx, routerId, issued, at),
          routerRenewalChange(routerId),
        );
      else await storeRouterCertificate(tx, { clock }, routerId, client, routerRenewalChange(routerId));
    });
    if (!request.requireVerification) renewed(routerId, client.fingerprint);
    channel.send({
      contentType: EdgeType.EnrollmentCertsResponseType,
      headers: new Map(),
      body: toBinary(
        EnrollmentCertsResponseSchema,
        create(EnrollmentCertsResponseSchema, { clientCertPem: client.certPem, serverCertPem: server.certPem }),
      ),
    });
    logger.info(
      { routerId, oldFingerprint: current.fingerprint, newFingerprint: client.fingerprint },
      request.requireVerification
        ? 'router certificates renewed: the new ones wait for the router to verify them'
        : 'router certificates renewed',
    );
  }

  /** EnrollmentExtendRouterVerifyRequest (20303): answered with an edge_ctrl_pb.Error, its code '' on success. */
  async verify(routerId: string, request: EnrollmentExtendRouterVerifyRequest): Promise<Outgoing> {
    const { store, clock, logger, renewed } = this.#options;
    if (request.clientCertPem === '')
      throw refused('MISSING_CLIENT_PEM', 'request did not contain a client certificate PEM');
    const current = await store.read((db) => routerCertificates(db, routerId));
    if (!current) throw refused('ROUTER_NOT_FOUND', `router with id ${routerId} not found`);
    if (current.unverifiedCertPem === null || current.unverifiedFingerprint === null)
      throw refused(
        'INVALID_ROUTER_STATE',
        'request is not possible as the router has no outstanding enrollment requests',
      );
    if (current.unverifiedCertPem !== request.clientCertPem)
      throw refused('INVALID_CLIENT_PEM', 'request did not contain a matching client pem');
    const at = formatTimestamp(clock());
    const promoted = await store.transaction((tx) =>
      recordedRouterWrite(
        tx,
        routerId,
        () => promoteUnverifiedRouterCertificate(tx, routerId, request.clientCertPem, at),
        routerRenewalChange(routerId),
      ),
    );
    // Between the read and the write another renewal or a re-enrollment replaced what waited.
    if (!promoted) throw refused('VERIFY_ERROR', 'enrollment extension error: the renewal was replaced meanwhile');
    renewed(routerId, current.unverifiedFingerprint);
    logger.info(
      { routerId, oldFingerprint: current.fingerprint, newFingerprint: current.unverifiedFingerprint },
      'router verified its renewed certificate: the old one is refused from now on',
    );
    return edgeErrorProtobuf('', '');
  }
}

async function readCsrs(certCsr: string, serverCertCsr: string) {
  return readExtensionCsrs({ certCsr, serverCertCsr }).catch(csrRefusal);
}

/** A CSR enrollment refuses (empty, unparsable, another name) is refused here with enrollment's reason. */
function csrRefusal(error: unknown): never {
  if (error instanceof ApiError) throw new RouterRequestError(`could not process CSR: ${error.message}`);
  throw error;
}
