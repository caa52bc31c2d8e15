// A service policy's members, read from the membership tables the policy engine maintains.
import type { OperationTable } from '../../http/operation.js';
import type { TableName } from '../../store/store.js';
import { linkedTo, list } from '../../crud/crud-handlers.js';
import { identity } from '../identity/identity.definition.js';
import { postureCheck } from '../posture-check/posture-check.definition.js';
import { associatedService } from '../service/service.definition.js';
import { servicePolicy } from './service-policy.definition.js';

const members = (table: TableName) => linkedTo(servicePolicy, { table, parentColumn: 'policy_id', childColumn: 'entity_id' });

export const servicePolicyLinkOperations: OperationTable<'management'> = {
  listServicePolicyIdentities: list(identity, 'admin', { scope: members('service_policy_identities') }),
  listServicePolicyServices: list(associatedService, 'admin', { scope: members('service_policy_services') }),
  listServicePolicyPostureChecks: list(postureCheck, 'admin', { scope: members('service_policy_posture_checks') }),
};
