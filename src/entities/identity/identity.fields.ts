// An identity's stored fields, declared apart from its definition so that its rules read their types.
import { boolean, integer, json, roleAttributes, text, timestamp, type ValuesOf } from '../../crud/define-entity.js';

export const identityFields = {
  name: text({ unique: true }),
  // The body's `type` (User, Device, Service, Default) is mapped to a type id by the rules.
  typeId: text({ filter: 'type', writable: 'never', required: true }),
  isAdmin: boolean(),
  isDefaultAdmin: boolean({ writable: 'never' }),
  roleAttributes: roleAttributes(),
  // Blank means none (and so is never a duplicate), as upstream's store trims it; a blank policy is the default.
  externalId: text({ unique: true, blankIsUnset: true }),
  authPolicyId: text({ fallback: () => 'default', blankIsUnset: true }),
  appData: json(),
  defaultHostingCost: integer({ filter: false, fallback: () => 0 }),
  defaultHostingPrecedence: text({ filter: false, fallback: () => 'default', blankIsUnset: true }),
  serviceHostingCosts: json({ fallback: () => ({}) }),
  serviceHostingPrecedences: json({ fallback: () => ({}) }),
  // Rendered by the rules only while set: upstream omits them otherwise (asked of v1.1.8).
  disabledAt: timestamp({ filter: false, writable: 'never', output: false }),
  disabledUntil: timestamp({ filter: false, writable: 'never', output: false, changesWithTime: true }),
  envInfo: json({ writable: 'never' }),
  sdkInfo: json({ writable: 'never' }),
};

export type Identity = ValuesOf<typeof identityFields>;
