// Services: what identities dial and bind, with their configs, role attributes and terminator strategy.
import { defineEntity, type EntityDefinition } from '../../crud/define-entity.js';
import { serviceFields } from './service.fields.js';
import { serviceRules, serviceView } from './service.rules.js';

export const service = defineEntity({
  type: 'service',
  path: 'services',
  table: 'services',
  idKind: 'base62',
  fields: serviceFields,
  links: (entity) => {
    const base = `./services/${String(entity.id)}`;
    return {
      'service-edge-router-policies': `${base}/service-edge-router-policies`,
      'service-policies': `${base}/service-policies`,
      terminators: `${base}/terminators`,
      configs: `${base}/configs`,
    };
  },
  rules: serviceRules,
});

/**
 * A service listed under another entity (`/identities/{id}/services`, a policy's or config's services): upstream
 * reads those with its detail lister, which leaves the caller's permissions unset (so no placeholder posture
 * query sets either).
 */
export const associatedService: EntityDefinition = {
  ...service,
  rules: { ...service.rules, extend: serviceView(undefined, { read: false }) },
};
