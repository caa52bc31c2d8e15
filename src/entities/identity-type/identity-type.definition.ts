// Identity types: the two fixed records upstream bootstraps (Default, Router); read-only through the API.
import { defineEntity, text } from '../../crud/define-entity.js';

export const identityType = defineEntity({
  type: 'identityType',
  path: 'identity-types',
  table: 'identity_types',
  idKind: 'base62',
  fields: { name: text({ unique: true, writable: 'never' }) },
});
