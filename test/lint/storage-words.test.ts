// The storage words rule (scripts/eslint-storage-words.mjs): outside src/store/, no literal names a table or a
// column, single-word columns included where the code says it means a column; API words that equal a table's name
// pass by their place (issue 25).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { noStorageWords, storageWords } from '../../scripts/eslint-storage-words.mjs';

const root = mkdtempSync(join(tmpdir(), 'storage-words-'));
after(() => rmSync(root, { recursive: true, force: true }));
const schema = `export interface Configs {\n  id: string;\n  config_type_id: string;\n  value: string;\n}\n\nexport interface Database {\n  configs: Configs;\n}\n`;
writeFileSync(join(root, 'schema.ts'), schema);

function lint(text: string, file = 'src/entities/config/config.rules.ts'): string[] {
  const linter = new Linter({ cwd: root });
  const config: Linter.Config[] = [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { storage: { rules: { 'no-storage-words': noStorageWords } } },
      rules: { 'storage/no-storage-words': ['error', 'schema.ts'] },
    },
  ];
  return linter.verify(text, config, join(root, file)).map((message) => message.message.split(':')[0] ?? '');
}

test('the schema gives tables and underscored columns as words, every column for storage places', () => {
  const { words, columns } = storageWords(schema);
  assert.deepEqual([...words].sort(), ['config_type_id', 'configs']);
  assert.deepEqual([...columns].sort(), ['config_type_id', 'configs', 'id', 'value']);
});

test('tables and underscored columns are refused anywhere outside a mapping', () => {
  assert.deepEqual(lint("namesOf(db, 'configs', ids); const c = 'config_type_id';"), [
    "'configs' is a storage name",
    "'config_type_id' is a storage name",
  ]);
  assert.deepEqual(lint('const t = `configs`;'), ["'configs' is a storage name"]);
});

test('single-word columns are refused where the code means a column, and pass as plain words', () => {
  assert.deepEqual(lint("columnIs('value', 1); link = { parentColumn: 'id', columns: ['value'] };"), [
    "'value' is a storage name",
    "'id' is a storage name",
    "'value' is a storage name",
  ]);
  assert.deepEqual(lint("const word = 'value'; find({ id: 'value' });"), []);
});

test("API words that equal a table's name pass by their place", () => {
  const text =
    "ref = { entity: 'configs' }; err = { field: 'configs' }; ApiError.invalidField('configs', r, v); if (change.changed.has('configs')) x();";
  assert.deepEqual(lint(text), []);
  assert.deepEqual(lint("other.has('configs');"), ["'configs' is a storage name"]);
});

test("a definition's mapping keys may spell storage; the same keys elsewhere may not", () => {
  const text =
    "defineEntity({ path: 'configs', table: 'configs', fields: { typeId: text({ column: 'config_type_id' }) } });";
  assert.deepEqual(lint(text, 'src/entities/config/config.definition.ts'), []);
  assert.deepEqual(lint(text), [
    "'configs' is a storage name",
    "'configs' is a storage name",
    "'config_type_id' is a storage name",
  ]);
});
