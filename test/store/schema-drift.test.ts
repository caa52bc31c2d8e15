// The committed typed schema must be what the migrations build: a migration without `npm run schema` fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { migratedSchema, schemaFile, schemaText } from '../../scripts/generate-store-schema.js';

describe('typed store schema', () => {
  it('matches a fresh generation from the migrations', async () => {
    const committed = readFileSync(schemaFile, 'utf8');
    assert.ok(
      committed === schemaText(await migratedSchema()),
      'src/store/schema.ts differs from the migrations: run npm run schema',
    );
  });
});
