// Lint: typescript-eslint's recommended type-checked rules plus the few the design asks for.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { noImportCycles } from './scripts/eslint-import-cycles.mjs';
import { noStorageWords } from './scripts/eslint-storage-words.mjs';

// Module boundaries of design.md 2.3: who may import whom, by folder. Type-only imports of AppDeps are allowed
// everywhere (it names every layer's pieces; lower layers use only its type).
const DOMAIN = ['auth', 'policy', 'posture', 'enrollment', 'pki', 'integrity'];
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
/**
 * SQL behind the store (issue 14): the query builder, the drivers and the store's connection internals are imported
 * in src/store/ only; everything else (domain code, tests, the bench) calls the store's query modules.
 */
const SQL_OUTSIDE_STORE = {
  group: ['kysely', 'kysely/*', 'pg', 'pg/*', 'better-sqlite3', '**/store/connection.js'],
  message: 'SQL lives behind the store: call a query module of src/store/queries/ (or add one) instead.',
};
const APP_DEPS_AS_TYPE = {
  group: ['**/app-deps.js'],
  allowTypeImports: true,
  message: 'AppDeps is imported as a type only below app.ts.',
};
// One rule entry per file (flat config does not merge a rule's options), so each entry repeats the SQL group.
const importRule = (patterns) => ({ '@typescript-eslint/no-restricted-imports': ['error', { patterns }] });
const restrict = (files, groups, message) => ({
  files,
  rules: importRule([
    { group: groups, message },
    APP_DEPS_AS_TYPE,
    ...(files.some((f) => f.startsWith('src/store/')) ? [] : [SQL_OUTSIDE_STORE]),
  ]),
});
const boundaries = [
  restrict(['src/lib/**/*.ts'], ['../**'], 'lib/ imports nothing of ours.'),
  restrict(['src/errors/**/*.ts'], ['../*', '!../lib'], 'errors/ may import lib/ only.'),
  restrict(
    ['src/store/**/*.ts'],
    anyOf(['http', 'crud', 'entities', 'apis', 'system', 'settings', ...DOMAIN]),
    'store/ may import lib/ and errors/ only.',
  ),
  restrict(
    ['src/http/**/*.ts'],
    anyOf(['crud', 'entities', 'apis', 'system', 'store', ...DOMAIN]),
    'http/ knows no entity, store or domain module.',
  ),
  restrict(
    ['src/crud/**/*.ts'],
    [...anyOf(['entities', 'apis', 'system', ...DOMAIN]), ...HTTP_INTERNALS],
    'crud/ knows no entity or domain module, and of http/ only the handler types.',
  ),
  restrict(
    DOMAIN.map((folder) => `src/${folder}/**/*.ts`),
    [...anyOf(['apis']), ...HTTP_INTERNALS],
    'Domain modules use of http/ only the handler types, and never apis/.',
  ),
  // The control plane (docs/design.md part 0): the channel is pure protocol; fabric/ never speaks HTTP.
  restrict(
    ['src/fabric/channel/**/*.ts'],
    [
      '../ctrl/**',
      '../messages/**',
      '../edge-sync/**',
      ...anyOf([
        'fabric/ctrl',
        'fabric/messages',
        'fabric/edge-sync',
        'http',
        'crud',
        'entities',
        'apis',
        'system',
        'settings',
        'store',
        'errors',
        ...DOMAIN,
      ]),
    ],
    'fabric/channel/ is pure protocol: it imports lib/ only.',
  ),
  // `ignores`, not a negated `files` entry: ESLint matches a negated entry alone, i.e. every file outside channel/.
  {
    ...restrict(
      ['src/fabric/**/*.ts'],
      [...anyOf(['apis', 'http', 'crud'])],
      'fabric/ never imports http/, apis/ or crud/.',
    ),
    ignores: ['src/fabric/channel/**'],
  },
  restrict(
    ['src/system/**/*.ts'],
    [...anyOf(['apis']), ...HTTP_INTERNALS],
    'Entities use of http/ only the handler types, and never apis/.',
  ),
  // An entity reaches another through its definition (`*.definition.ts`, the fabric view's `*.fabric.ts`) or what
  // entities share (`shared/`), never through its rules, fields or handlers (design.md 2.3).
  {
    files: ['src/entities/**/*.ts'],
    rules: importRule([
      {
        group: [...anyOf(['apis']), ...HTTP_INTERNALS],
        message: 'Entities use of http/ only the handler types, and never apis/.',
      },
      {
        regex: String.raw`^\.\./(?!shared/)[a-z-]+/(?!.*\.(?:definition|fabric)\.js$)`,
        message: "Another entity's internals: import its definition, or move what both use to entities/shared/.",
      },
      APP_DEPS_AS_TYPE,
      SQL_OUTSIDE_STORE,
    ]),
  },
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'ziti-home/**', 'bench/results/**', 'dist/**'] },
  // protoc-gen-es writes `eslint-disable` atop every file; a file it leaves nothing to disable in is not a finding.
  { files: ['src/fabric/messages/gen/**'], linterOptions: { reportUnusedDisableDirectives: 'off' } },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
      'max-lines': ['warn', { max: 300, skipBlankLines: true, skipComments: true }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
    },
  },
  // No import cycles among the sources, type-only imports included.
  {
    files: ['src/**/*.ts'],
    plugins: { local: { rules: { 'no-import-cycles': noImportCycles } } },
    rules: { 'local/no-import-cycles': ['error', 'src'] },
  },
  // Storage words stay in the store (issue 25): no table or column named outside src/store/ (the rule's header says
  // which literals it reads as storage).
  {
    files: ['src/**/*.ts'],
    ignores: ['src/store/**', '**/*.test.ts'],
    plugins: { storage: { rules: { 'no-storage-words': noStorageWords } } },
    rules: { 'storage/no-storage-words': ['error', 'src/store/schema.ts'] },
  },
  // Files no boundary below names (app.ts, apis/, settings/, tests, bench, scripts) still keep SQL behind the store.
  { files: ['**/*.ts'], ignores: ['src/store/**'], rules: importRule([APP_DEPS_AS_TYPE, SQL_OUTSIDE_STORE]) },
  // A `Db` handle is still the query builder underneath (src/store/store.ts), so building a query on it needs no
  // import: the builder's entry points are refused outside the store as well.
  {
    files: ['**/*.ts'],
    ignores: ['src/store/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.property.name=/^(selectFrom|selectNoFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto)$/]',
          message: SQL_OUTSIDE_STORE.message,
        },
      ],
    },
  },
  // The scale bench's own measuring SQL: a second store connection counting links while the controller writes (on
  // either database), a profiler timing SQLite's statements with their plans, and a count of PostgreSQL round trips.
  {
    files: ['bench/scale-writes.ts', 'bench/profile-policy-change.ts', 'bench/round-trips.ts'],
    rules: importRule([APP_DEPS_AS_TYPE]),
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
