// The A config's stored fields, declared apart from its definition so that its rules read their types.
import { json, text, type ValuesOf } from '../../crud/define-entity.js';

export const configFields = {
  name: text({ unique: true }),
  // Fixed at create: upstream ignores a different type on PUT and PATCH. Its public symbol is `type`.
  configTypeId: text({ filter: 'type', writable: 'create', required: true }),
  // `data` is a map upstream keeps out of the public symbols.
  data: json(),
};

export type Config = ValuesOf<typeof configFields>;
