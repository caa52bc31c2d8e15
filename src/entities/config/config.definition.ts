// Configs: named JSON documents of one config type, attached to services (and, later, identity overrides).
import { defineEntity, json, text } from '../../crud/define-entity.js';
import { configRules } from './config.rules.js';

export const config = defineEntity({
  type: 'config',
  path: 'configs',
  table: 'configs',
  idKind: 'base62',
  fields: {
    name: text({ unique: true }),
    // Fixed at create: upstream ignores a different type on PUT and PATCH. Its public symbol is `type`.
    configTypeId: text({ filter: 'type', writable: 'create' }),
    // `data` is a map upstream keeps out of the public symbols.
    data: json(),
  },
  rules: configRules,
});
