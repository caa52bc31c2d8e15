// Config types: named JSON schemas that the data of their configs must satisfy.
import { defineEntity, json, text } from '../../crud/define-entity.js';
import { configTypeRules } from './config-type.rules.js';

export const configType = defineEntity({
  type: 'configType',
  path: 'config-types',
  table: 'config_types',
  idKind: 'base62',
  fields: {
    name: text({ unique: true }),
    // Public as a map symbol upstream (ziti `db/config_type_store.go`), so `schema.type = "object"` filters.
    schema: json({ filter: true }),
  },
  rules: configTypeRules,
});
