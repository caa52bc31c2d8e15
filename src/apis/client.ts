// The client API's operation table: every bound operationId, assembled from the *.operations.ts files.
import type { OperationTable } from '../http/operation.js';
import { clientSystemOperations } from '../system/system.operations.js';
import { clientAuthOperations } from '../auth/auth.operations.js';
import { currentIdentityOperations } from '../entities/identity/identity.operations.js';
import { currentIdentityAuthenticatorOperations } from '../entities/authenticator/authenticator.operations.js';
import { clientServiceOperations } from '../entities/service/service.operations.js';
import { clientServiceViewOperations } from '../entities/service/service.client.operations.js';
import { currentIdentityEdgeRouterOperations } from '../entities/edge-router/edge-router.links.operations.js';
import { enrollOperations } from '../enrollment/enroll.operations.js';
import { currentIdentityCertificateOperations } from '../auth/current-identity-certificates.js';
import { apiSessionCertificateOperations } from '../auth/api-session-certificates.js';
import { currentIdentityMfaOperations } from '../auth/mfa/mfa.operations.js';
import { clientExternalJwtSignerOperations } from '../entities/external-jwt-signer/external-jwt-signer.operations.js';
import { clientSessionOperations } from '../entities/session/session.operations.js';
import { postureResponseOperations } from '../posture/posture-response.operations.js';

export const clientOperations: OperationTable<'client'> = {
  ...clientSystemOperations,
  ...clientAuthOperations,
  ...currentIdentityOperations,
  ...currentIdentityAuthenticatorOperations,
  ...clientServiceOperations,
  ...clientServiceViewOperations,
  ...currentIdentityEdgeRouterOperations,
  ...enrollOperations,
  ...currentIdentityCertificateOperations,
  ...apiSessionCertificateOperations,
  ...currentIdentityMfaOperations,
  ...clientExternalJwtSignerOperations,
  ...clientSessionOperations,
  ...postureResponseOperations,
};
