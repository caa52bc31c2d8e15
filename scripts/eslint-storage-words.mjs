// A lint rule that keeps storage words in the store (issue 25): outside src/store/, no string literal names a table
// or a snake_case column of the schema. Tables and columns are read from the generated schema (src/store/schema.ts),
// so a new table is covered the day it is added. Column names without an underscore (`name`, `value`) are API
// words too and are not told apart. The one exemption is the declaration that maps an entity onto its storage, as
// design.md 2.5 has it: `table:` and `column:` (and a lookup symbol's keys) in a definition (`*.definition.ts`,
// `*.fields.ts`, `*.fabric.ts`), beside its `path:`, the API's collection name, which is often the table's too.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Table names, and column names with an underscore, of the generated schema. */
export function storageWords(schemaText) {
  const database = /export interface Database \{([^}]*)\}/.exec(schemaText);
  if (!database) throw new Error('src/store/schema.ts has no Database interface');
  const tables = [...database[1].matchAll(/^\s+(\w+):/gm)].map((match) => match[1]);
  const columns = [...schemaText.matchAll(/^\s+(\w+)\??:/gm)].map((match) => match[1]).filter((name) => name.includes('_'));
  return new Set([...tables, ...columns]);
}

const MAPPING_FILE = /\.(?:definition|fields|fabric)\.ts$/;
const MAPPING_KEYS = new Set(['table', 'column', 'foreignKey', 'existsIn', 'ownerColumn', 'valueColumn', 'path']);

let cached;

export const noStorageWords = {
  meta: {
    type: 'problem',
    schema: [{ type: 'string' }],
    messages: { word: "'{{word}}' is a storage name: only src/store/ spells tables and columns (add a query or a named link there)." },
  },
  create(context) {
    cached ??= storageWords(readFileSync(resolve(context.cwd, context.options[0] ?? 'src/store/schema.ts'), 'utf8'));
    const isMappingFile = MAPPING_FILE.test(context.filename);
    const check = (node, word) => {
      if (!cached.has(word)) return;
      const parent = node.parent;
      const isMapping = isMappingFile && parent?.type === 'Property' && parent.value === node && MAPPING_KEYS.has(parent.key.name ?? parent.key.value);
      if (!isMapping) context.report({ node, messageId: 'word', data: { word } });
    };
    return {
      Literal: (node) => typeof node.value === 'string' && check(node, node.value),
      TemplateLiteral: (node) => node.expressions.length === 0 && check(node, node.quasis[0].value.cooked),
    };
  },
};
