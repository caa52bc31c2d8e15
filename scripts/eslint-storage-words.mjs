// A lint rule that keeps storage words in the store (issue 25): outside src/store/, no string literal names a table
// or a snake_case column of the schema. Tables and columns are read from the generated schema (src/store/schema.ts),
// so a new table is covered the day it is added. Column names without an underscore (`name`, `value`) are API
// words too, so they are caught only where the code says it means storage: as the value of a storage key
// (`column:`, `parentColumn:`, `columns: [...]`) or the column argument of `columnIs`. Some API words equal a table's
// name and are not storage by their place: the `entity` of an entity reference, the `field` of an error (also
// `invalidField`'s first argument), a field a change changed (`change.changed.has('configs')`). The one exemption is the declaration that maps an entity onto its storage, as
// design.md 2.5 has it: `table:` and `column:` (and a lookup symbol's keys) in a definition (`*.definition.ts`,
// `*.fields.ts`, `*.fabric.ts`), beside its `path:`, the API's collection name, which is often the table's too.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Table names and column names of the generated schema: `words` (tables, columns with an underscore) and every column. */
export function storageWords(schemaText) {
  const database = /export interface Database \{([^}]*)\}/.exec(schemaText);
  if (!database) throw new Error('src/store/schema.ts has no Database interface');
  const tables = [...database[1].matchAll(/^\s+(\w+):/gm)].map((match) => match[1]);
  const columns = [...schemaText.matchAll(/^\s+(\w+)\??:/gm)].map((match) => match[1]);
  return {
    words: new Set([...tables, ...columns.filter((name) => name.includes('_'))]),
    columns: new Set([...tables, ...columns]),
  };
}

const MAPPING_FILE = /\.(?:definition|fields|fabric)\.ts$/;
const MAPPING_KEYS = new Set(['table', 'column', 'foreignKey', 'existsIn', 'ownerColumn', 'valueColumn', 'path']);
/** Keys whose values are storage names wherever they are written. */
const STORAGE_KEYS = new Set([
  'table',
  'column',
  'columns',
  'foreignKey',
  'existsIn',
  'ownerColumn',
  'valueColumn',
  'parentColumn',
  'childColumn',
  'parentTable',
]);
/** Keys whose values are the API's words, even where one equals a table's name. */
const API_KEYS = new Set(['entity', 'field']);

const keyName = (property) => property.key?.name ?? property.key?.value;
/** The property a literal is the value of, directly or as an element of the array that is. */
function ownerProperty(node) {
  const parent = node.parent;
  if (parent?.type === 'Property' && parent.value === node) return parent;
  if (parent?.type === 'ArrayExpression' && parent.parent?.type === 'Property' && parent.parent.value === parent)
    return parent.parent;
  return undefined;
}
const calleeName = (call) => (call.callee.type === 'MemberExpression' ? call.callee.property.name : call.callee.name);
/** Whether a literal is the first argument of a call to `name`. */
const firstArgumentOf = (node, names) =>
  node.parent?.type === 'CallExpression' && node.parent.arguments[0] === node && names.has(calleeName(node.parent));
const COLUMN_CALLS = new Set(['columnIs']);
const API_FIELD_CALLS = new Set(['invalidField']);
/** Whether a literal is what `<x>.changed.has(…)` asks about: a changed field's API name. */
const isChangedField = (node) =>
  node.parent?.type === 'CallExpression' &&
  node.parent.arguments[0] === node &&
  node.parent.callee.type === 'MemberExpression' &&
  node.parent.callee.property.name === 'has' &&
  node.parent.callee.object.type === 'MemberExpression' &&
  node.parent.callee.object.property.name === 'changed';

let cached;

export const noStorageWords = {
  meta: {
    type: 'problem',
    schema: [{ type: 'string' }],
    messages: {
      word: "'{{word}}' is a storage name: only src/store/ spells tables and columns (add a query or a named link there).",
    },
  },
  create(context) {
    cached ??= storageWords(readFileSync(resolve(context.cwd, context.options[0] ?? 'src/store/schema.ts'), 'utf8'));
    const isMappingFile = MAPPING_FILE.test(context.filename);
    const check = (node, word) => {
      const property = ownerProperty(node);
      const key = property && keyName(property);
      const inStoragePlace = STORAGE_KEYS.has(key) || firstArgumentOf(node, COLUMN_CALLS);
      if (!(inStoragePlace ? cached.columns : cached.words).has(word)) return;
      if (!inStoragePlace && (API_KEYS.has(key) || firstArgumentOf(node, API_FIELD_CALLS) || isChangedField(node)))
        return;
      const isMapping = isMappingFile && property?.value === node && MAPPING_KEYS.has(key);
      if (!isMapping) context.report({ node, messageId: 'word', data: { word } });
    };
    return {
      Literal: (node) => typeof node.value === 'string' && check(node, node.value),
      TemplateLiteral: (node) => node.expressions.length === 0 && check(node, node.quasis[0].value.cooked),
    };
  },
};
