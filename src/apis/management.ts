// The management API's operation table: every bound operationId, assembled from the *.operations.ts files.
import type { OperationTable } from '../http/operation.js';
import { managementSystemOperations } from '../system/system.operations.js';
import { identityTypeOperations } from '../entities/identity-type/identity-type.operations.js';
import { entityChangeOperations } from '../entities/entity-change/entity-change.operations.js';
import { authPolicyOperations } from '../entities/auth-policy/auth-policy.operations.js';
import { managementAuthOperations } from '../auth/auth.operations.js';
import { currentIdentityOperations, identityOperations } from '../entities/identity/identity.operations.js';
import {
  authenticatorOperations,
  currentIdentityAuthenticatorOperations,
} from '../entities/authenticator/authenticator.operations.js';
import { apiSessionOperations } from '../entities/api-session/api-session.operations.js';
import { configTypeOperations } from '../entities/config-type/config-type.operations.js';
import { configOperations } from '../entities/config/config.operations.js';
import { serviceOperations } from '../entities/service/service.operations.js';
import { edgeRouterOperations } from '../entities/edge-router/edge-router.operations.js';
import { routerOperations } from '../entities/router/router.operations.js';
import { postureCheckOperations } from '../entities/posture-check/posture-check.operations.js';
import { postureCheckTypeOperations } from '../entities/posture-check-type/posture-check-type.operations.js';
import { terminatorOperations } from '../entities/terminator/terminator.operations.js';
import { servicePolicyOperations } from '../entities/service-policy/service-policy.operations.js';
import { edgeRouterPolicyOperations } from '../entities/edge-router-policy/edge-router-policy.operations.js';
import { serviceEdgeRouterPolicyOperations } from '../entities/service-edge-router-policy/service-edge-router-policy.operations.js';
import { identityServiceConfigOperations } from '../entities/identity/identity.service-configs.operations.js';
import { identityPolicyAdviceOperations } from '../entities/identity/identity.policy-advice.operations.js';
import { identityLinkOperations } from '../entities/identity/identity.links.operations.js';
import { serviceLinkOperations } from '../entities/service/service.links.operations.js';
import { edgeRouterLinkOperations } from '../entities/edge-router/edge-router.links.operations.js';
import { servicePolicyLinkOperations } from '../entities/service-policy/service-policy.links.operations.js';
import { edgeRouterPolicyLinkOperations } from '../entities/edge-router-policy/edge-router-policy.links.operations.js';
import { serviceEdgeRouterPolicyLinkOperations } from '../entities/service-edge-router-policy/service-edge-router-policy.links.operations.js';
import { enrollmentOperations } from '../entities/enrollment/enrollment.operations.js';
import { caOperations } from '../entities/ca/ca.operations.js';
import { currentIdentityCertificateOperations } from '../auth/current-identity-certificates.js';
import { currentIdentityMfaOperations, identityMfaOperations } from '../auth/mfa/mfa.operations.js';
import { externalJwtSignerOperations } from '../entities/external-jwt-signer/external-jwt-signer.operations.js';
import { databaseOperations } from '../integrity/database.operations.js';
import { identityTraceOperations } from '../entities/identity/identity.trace.operations.js';
import { managementSessionOperations } from '../entities/session/session.operations.js';
import { identityPostureOperations } from '../posture/identity-posture.operations.js';

export const managementOperations: OperationTable<'management'> = {
  ...managementSystemOperations,
  ...managementAuthOperations,
  ...identityTypeOperations,
  ...entityChangeOperations,
  ...authPolicyOperations,
  ...identityOperations,
  ...currentIdentityOperations,
  ...authenticatorOperations,
  ...currentIdentityAuthenticatorOperations,
  ...apiSessionOperations,
  ...configTypeOperations,
  ...configOperations,
  ...serviceOperations,
  ...edgeRouterOperations,
  ...routerOperations,
  ...postureCheckOperations,
  ...postureCheckTypeOperations,
  ...terminatorOperations,
  ...servicePolicyOperations,
  ...edgeRouterPolicyOperations,
  ...serviceEdgeRouterPolicyOperations,
  ...identityServiceConfigOperations,
  ...identityPolicyAdviceOperations,
  ...identityLinkOperations,
  ...serviceLinkOperations,
  ...edgeRouterLinkOperations,
  ...servicePolicyLinkOperations,
  ...edgeRouterPolicyLinkOperations,
  ...serviceEdgeRouterPolicyLinkOperations,
  ...enrollmentOperations,
  ...caOperations,
  ...currentIdentityCertificateOperations,
  ...currentIdentityMfaOperations,
  ...identityMfaOperations,
  ...externalJwtSignerOperations,
  ...databaseOperations,
  ...identityTraceOperations,
  ...managementSessionOperations,
  ...identityPostureOperations,
};
