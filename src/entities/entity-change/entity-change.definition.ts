// The record of entity changes (issue 31, an extension beyond upstream's contract): who changed which entity, when,
// through what, and the entity before and after; written by the changing transaction (events/entity-change-log.ts),
// read-only here, the same on every instance. `createdAt` is when the change was made.
import { defineEntity, json, text } from '../../crud/define-entity.js';

const readOnly = { writable: 'never' } as const;

export const entityChange = defineEntity({
  type: 'entityChange',
  path: 'entity-changes',
  table: 'entity_changes',
  idKind: 'cuid',
  fields: {
    changeType: text({ ...readOnly, required: true }),
    entityType: text({ ...readOnly, required: true }),
    entityId: text({ ...readOnly, required: true }),
    authorType: text({ ...readOnly, required: true }),
    authorId: text(readOnly),
    authorName: text(readOnly),
    sourceType: text({ ...readOnly, required: true }),
    source: json(readOnly),
    changedFields: json(readOnly),
    initialState: json(readOnly),
    finalState: json(readOnly),
    instanceId: text({ ...readOnly, required: true }),
  },
});
