// Enrollments: outstanding one-time tokens (with their JWT) for identities and routers, as management sees them.
import { defineEntity, text, timestamp } from '../../crud/define-entity.js';
import { enrollmentRules } from './enrollment.rules.js';
import { recordable } from '../../crud/recorded-write.js';

/**
 * Written only by the enrollment code (`create-enrollment.ts`), never through the generic create/update, so every
 * field is `writable: 'never'`. The references are rendered by the rules, which leave out what is empty as
 * upstream's `omitempty` does; `method` and `expiresAt` are not filterable upstream (docs/reference/http-conventions.md
 * §10).
 */
export const enrollment = recordable(
  defineEntity({
    type: 'enrollment',
    path: 'enrollments',
    table: 'enrollments',
    idKind: 'base62',
    fields: {
      method: text({ filter: false, writable: 'never' }),
      token: text({ unique: true, writable: 'never' }),
      expiresAt: timestamp({ filter: false, writable: 'never' }),
      jwt: text({ filter: false, writable: 'never' }),
      identityId: text({ filter: 'identity', output: false, writable: 'never' }),
      caId: text({ output: false, writable: 'never' }),
      routerId: text({ filter: false, output: false, writable: 'never' }),
      username: text({ filter: false, output: false, writable: 'never' }),
    },
    symbols: {
      // One router column for both kinds; the views keep `edgeRouter = <transit router id>` from matching.
      edgeRouter: {
        kind: 'column',
        type: 'string',
        column: 'id',
        via: { table: 'edge_routers', foreignKey: 'router_id' },
      },
      transitRouter: {
        kind: 'column',
        type: 'string',
        column: 'id',
        via: { table: 'transit_router_ids', foreignKey: 'router_id' },
      },
    },
    rules: enrollmentRules,
  }),
);
