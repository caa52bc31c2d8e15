// Posture check types: the five fixed records upstream bootstraps (no MFA row), with OS hints; read-only.
import { defineEntity, json, text } from '../../crud/define-entity.js';

export const postureCheckType = defineEntity({
  type: 'postureCheckType',
  path: 'posture-check-types',
  table: 'posture_check_types',
  idKind: 'base62',
  fields: {
    name: text({ unique: true, writable: 'never' }),
    operatingSystems: json({ filter: false, writable: 'never' }),
  },
  rules: {
    // Upstream's REST mapper never sets `version`, so it is always null.
    extend: (_context, types) => Promise.resolve(types.map(() => ({ version: null }))),
  },
});
