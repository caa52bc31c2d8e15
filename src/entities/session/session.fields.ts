// A session's stored fields, which its definition declares and its rules read typed.
import { json, text, type ValuesOf } from '../../crud/define-entity.js';

// Rendered by the rules in upstream's field order; the symbols are upstream's public ones (`service`, `token`,
// `apiSession`, `type`), plus `identity`, which the session stores itself.
export const sessionFields = {
  serviceId: text({ required: true, column: 'service_id', filter: 'service', writable: 'never', output: false }),
  token: text({ required: true, unique: true, writable: 'never', output: false }),
  apiSessionId: text({
    required: true,
    column: 'api_session_id',
    filter: 'apiSession',
    writable: 'never',
    output: false,
  }),
  type: text({ required: true, writable: 'never', output: false }),
  identityId: text({ required: true, column: 'identity_id', filter: 'identity', writable: 'never', output: false }),
  servicePolicies: json({ writable: 'never', output: false }),
};

export type Session = ValuesOf<typeof sessionFields>;
