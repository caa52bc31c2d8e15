// Configs: named JSON documents of one config type, attached to services (and, later, identity overrides).
import { defineEntity } from '../../crud/define-entity.js';
import { configFields } from './config.fields.js';
import { configRules } from './config.rules.js';

export const config = defineEntity({
  type: 'config',
  path: 'configs',
  table: 'configs',
  idKind: 'base62',
  fields: configFields,
  rules: configRules,
});
