// Identities: who connects to the overlay — people, devices, services and (system-created) routers.
import { defineEntity } from '../../crud/define-entity.js';
import { identityFields } from './identity.fields.js';
import { identityLinks } from '../../auth/identity-links.js';
import { identityRules } from './identity.rules.js';

export const identity = defineEntity({
  type: 'identity',
  path: 'identities',
  table: 'identities',
  duplicateName: 'index',
  idKind: 'shortId',
  fields: identityFields,
  links: (entity) => {
    const { self: _self, ...rest } = identityLinks(entity.id, entity.authPolicyId ?? 'default');
    return rest;
  },
  rules: identityRules,
});
