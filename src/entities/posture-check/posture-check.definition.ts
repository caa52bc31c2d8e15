// Posture checks: device state (OS, MAC, domain, processes, MFA) that service policies can require of a client.
import { boolean, defineEntity, integer, json, stringSet, text } from '../../crud/define-entity.js';
import { postureCheckRules } from './posture-check.rules.js';

/**
 * The public symbols are upstream's (`db/posture_check_store.go`): `name` and MFA's `promptOnWake` /
 * `promptOnUnlock`; role attributes are an internal set there, so they are stored but not filterable.
 * The type-specific fields live in `details`; the rules fill it and render it per type.
 */
export const postureCheck = defineEntity({
  type: 'postureCheck',
  path: 'posture-checks',
  table: 'posture_checks',
  idKind: 'base62',
  fields: {
    name: text({ unique: true }),
    typeId: text({ filter: false, writable: 'create' }),
    roleAttributes: stringSet({ filter: false }),
    // Always 1: upstream never increments it.
    version: integer({ filter: false, writable: 'never' }),
    details: json({ filter: false, writable: 'never', output: false }),
    // NULL on checks other than MFA, where upstream has no value for them (see the rules).
    promptOnWake: boolean({ writable: 'never', output: false }),
    promptOnUnlock: boolean({ writable: 'never', output: false }),
  },
  rules: postureCheckRules,
});
