// Lint: typescript-eslint's recommended type-checked rules plus the few the design asks for.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { noImportCycles } from './scripts/eslint-import-cycles.mjs';


// Module boundaries of design.md 2.3: who may import whom, by folder. Type-only imports of AppDeps are allowed
// everywhere (it names every layer's pieces; lower layers use only its type).
const DOMAIN = ['auth', 'policy', 'posture', 'enrollment', 'pki', 'database'];
const anyOf = (folders) => folders.map((folder) => `**/${folder}/**`);
/** What handlers may use of the HTTP layer: the operation types, envelopes, the caller, the client's certificates. */
const HTTP_INTERNALS = [
  '**/http/*',
  '!**/http/operation.js',
  '!**/http/envelope.js',
  '!**/http/request-context.js',
  '!**/http/client-certificates.js',
  '!**/http/spec',
  '**/http/spec/*',
  '!**/http/spec/load-spec.js',
];
const restrict = (files, groups, message) => ({
  files,
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          { group: groups, message },
          { group: ['**/app-deps.js'], allowTypeImports: true, message: 'AppDeps is imported as a type only below app.ts.' },
        ],
      },
    ],
  },
});
const boundaries = [
  restrict(['src/lib/**/*.ts'], ['../**'], 'lib/ imports nothing of ours.'),
  restrict(['src/errors/**/*.ts'], ['../*', '!../lib'], 'errors/ may import lib/ only.'),
  restrict(['src/store/**/*.ts'], anyOf(['http', 'crud', 'entities', 'apis', 'system', 'settings', ...DOMAIN]), 'store/ may import lib/ and errors/ only.'),
  restrict(['src/http/**/*.ts'], anyOf(['crud', 'entities', 'apis', 'system', 'store', ...DOMAIN]), 'http/ knows no entity, store or domain module.'),
  restrict(['src/crud/**/*.ts'], [...anyOf(['entities', 'apis', 'system', ...DOMAIN]), ...HTTP_INTERNALS], 'crud/ knows no entity or domain module, and of http/ only the handler types.'),
  restrict(DOMAIN.map((folder) => `src/${folder}/**/*.ts`), [...anyOf(['apis']), ...HTTP_INTERNALS], 'Domain modules use of http/ only the handler types, and never apis/.'),
  restrict(['src/entities/**/*.ts', 'src/system/**/*.ts'], [...anyOf(['apis']), ...HTTP_INTERNALS], 'Entities use of http/ only the handler types, and never apis/.'),
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'ziti-home/**', 'bench/results/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
      'max-lines': ['warn', { max: 300, skipBlankLines: true, skipComments: true }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
    },
  },
  // No import cycles among the sources (type-only imports do not count: they vanish at run time).
  {
    files: ['src/**/*.ts'],
    plugins: { local: { rules: { 'no-import-cycles': noImportCycles } } },
    rules: { 'local/no-import-cycles': ['error', 'src'] },
  },
  ...boundaries,
  {
    files: ['**/*.test.ts', 'test/**', 'bench/**', 'scripts/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'max-lines': 'off',
    },
  },
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
  // The build and start scripts are plain JavaScript (they run where no TypeScript loader is installed).
  {
    files: ['scripts/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { process: 'readonly' } },
  },
);
