// Identities: who connects to the overlay — people, devices, services and (system-created) routers.
import { boolean, defineEntity, integer, json, roleAttributes, text, timestamp } from '../../crud/define-entity.js';
import { identityLinks } from '../../auth/identity-links.js';
import { identityRules } from './identity.rules.js';

export const identity = defineEntity({
  type: 'identity',
  path: 'identities',
  table: 'identities',
  duplicateName: 'index',
  idKind: 'shortId',
  fields: {
    name: text({ unique: true }),
    // The body's `type` (User, Device, Service, Default) is mapped to a type id by the rules.
    typeId: text({ filter: 'type', writable: 'never' }),
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
  },
  links: (entity) => {
    const { self: _self, ...rest } = identityLinks(entity.id as string, (entity.authPolicyId as string | null) ?? 'default');
    return rest;
  },
  rules: identityRules,
});
