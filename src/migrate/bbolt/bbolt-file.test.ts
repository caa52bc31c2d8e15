import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { BoltFile, BoltFormatError } from './bbolt-file.js';
import { decodeField } from './boltz-values.js';

// Written by go.etcd.io/bbolt v1.3.10 in two transactions: `root` holds 300 small buckets (inline buckets under
// branch pages), `big` a 20,000-byte value (overflow pages) and 300 more keys, `empty` nothing.
const sample = () =>
  gunzipSync(readFileSync(new URL('../../../test/migrate/fixtures/bbolt-sample.db.gz', import.meta.url)));

describe('BoltFile', () => {
  it('reads the newest valid meta page', () => {
    const file = new BoltFile(sample());
    assert.equal(file.meta.pageSize, 4096);
    assert.equal(file.meta.txid, 3n);
  });

  it('walks buckets in byte order, through branch pages and inline buckets', () => {
    const root = new BoltFile(sample()).root();
    assert.deepEqual(
      [...root.entries()].map((entry) => entry.key.toString()),
      ['big', 'empty', 'root'],
    );
    const entities = [...(root.bucket('root')?.entries() ?? [])];
    assert.equal(entities.length, 300);
    assert.equal(entities[0]?.key.toString(), 'entity-0000');
    assert.equal(entities[299]?.key.toString(), 'entity-0299');
    const last = root.bucket('root')?.bucket('entity-0299');
    assert.equal(decodeField(last?.get('name') ?? Buffer.alloc(0)), 'name 299');
    assert.equal(decodeField(last?.get('n') ?? Buffer.alloc(0)), 299);
  });

  it('reads a value spanning overflow pages, and the second transaction', () => {
    const big = new BoltFile(sample()).root().bucket('big');
    assert.equal(big?.get('value')?.toString(), '0123456789'.repeat(2000));
    assert.equal(big?.get('later')?.toString(), 'second tx');
    assert.equal([...(big?.entries() ?? [])].length, 302);
    assert.equal(big?.get('absent'), undefined);
  });

  it('reads an empty bucket', () => {
    assert.deepEqual([...(new BoltFile(sample()).root().bucket('empty')?.entries() ?? [])], []);
  });

  it('falls back to the previous commit when the newest meta page is torn', () => {
    const data = sample();
    data.writeUInt8(data.readUInt8(4096 + 16 + 20) ^ 0xff, 4096 + 16 + 20); // meta 1 (txid 3)'s root: its checksum no longer holds
    const file = new BoltFile(data);
    assert.equal(file.meta.txid, 2n);
    assert.equal(file.root().bucket('big')?.get('later'), undefined);
    assert.equal(file.root().bucket('big')?.get('value')?.length, 20_000);
  });

  it('refuses a file that is not a bbolt database', () => {
    assert.throws(() => new BoltFile(Buffer.alloc(8192)), BoltFormatError);
    assert.throws(() => new BoltFile(Buffer.from('SQLite format 3\0')), BoltFormatError);
  });

  it('refuses a page number outside the database', () => {
    const data = sample();
    assert.throws(() => new BoltFile(data).page(10_000n), /outside the database/);
  });
});
