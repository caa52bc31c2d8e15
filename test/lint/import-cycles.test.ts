// The no-cycles lint rule (scripts/eslint-import-cycles.mjs) counts type-only imports: a circle of types is still
// a circle of "who depends on whom" (issue 25).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { noImportCycles } from '../../scripts/eslint-import-cycles.mjs';

const root = mkdtempSync(join(tmpdir(), 'import-cycles-'));
after(() => rmSync(root, { recursive: true, force: true }));

const files: Record<string, string> = {
  'src/deps.ts': "import type { Sessions } from './auth/sessions.js';\nexport interface Deps { sessions: Sessions }\n",
  'src/auth/sessions.ts': "import { disable } from './disable.js';\nexport class Sessions { end = disable; }\n",
  'src/auth/disable.ts':
    "import type { Deps } from '../deps.js';\nexport function disable(deps: Deps): Deps { return deps; }\n",
  'src/lib/clock.ts': 'export type Clock = () => Date;\n',
  'src/auth/uses-clock.ts':
    "import type { Clock } from '../lib/clock.js';\nexport const now = (clock: Clock): Date => clock();\n",
};
for (const [path, text] of Object.entries(files)) {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}

function lint(path: string): string[] {
  const linter = new Linter({ cwd: root });
  const config: Linter.Config[] = [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { local: { rules: { 'no-import-cycles': noImportCycles } } },
      rules: { 'local/no-import-cycles': ['error', 'src'] },
    },
  ];
  const file = join(root, path);
  return linter.verify(readFileSync(file, 'utf8'), config, file).map((message) => message.message);
}

test('a circle made only of type imports is refused where it closes', () => {
  assert.deepEqual(lint('src/auth/disable.ts'), [
    'Import cycle: ../deps.js imports back into this file (3 files in the cycle).',
  ]);
  assert.deepEqual(lint('src/deps.ts'), [
    'Import cycle: ./auth/sessions.js imports back into this file (3 files in the cycle).',
  ]);
});

test('a type import that closes no circle is allowed', () => {
  assert.deepEqual(lint('src/auth/uses-clock.ts'), []);
});
