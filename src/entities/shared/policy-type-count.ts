// The `policyType` parameter of the identity–service sub-lists, which both sides of the pair list.
import type { OperationContext } from '../../http/operation.js';

/**
 * `?policyType=dial|bind` on identity–service lists: only pairs some policy of that type joins. The contract
 * declares the enum, so other values are refused before this runs (upstream lower-cases and ignores them).
 */
export function policyTypeCount(context: OperationContext): 'dial' | 'bind' | undefined {
  const given = context.query.policyType;
  const policyType = typeof given === 'string' ? given.toLowerCase() : undefined;
  return policyType === 'dial' || policyType === 'bind' ? policyType : undefined;
}
