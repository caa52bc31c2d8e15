import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../lib/clock.js';
import { migrations } from '../store/migrations/index.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import { ensurePki } from './ensure-pki.js';
import { pkiFileNames } from './pki-files.js';
import { ensureSharedPki } from './shared-pki.js';

const now = fixedClock(new Date('2026-01-01T00:00:00Z'));
const folders: string[] = [];
const tempFolder = () => {
  const folder = mkdtempSync(join(tmpdir(), 'ziti-shared-pki-'));
  folders.push(folder);
  return folder;
};

describe('shared PKI', () => {
  let databaseFolder = '';
  let stores: Store[] = [];
  const openShared = async () => {
    const store = await openSqliteStore({ file: join(databaseFolder, 'ctrl.db'), migrations });
    stores.push(store);
    return store;
  };
  before(() => {
    databaseFolder = tempFolder();
  });
  after(async () => {
    for (const store of stores) await store.close();
    stores = [];
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it('is created by the first instance and loaded by every other, with one cluster id', async () => {
    const [homeA, homeB] = [tempFolder(), tempFolder()];
    const a = await ensureSharedPki(await openShared(), { home: homeA, advertisedHost: 'ctrl.example.com', now });
    const b = await ensureSharedPki(await openShared(), { home: homeB, advertisedHost: 'ctrl.example.com', now });
    assert.equal(b.pki.caBundlePem, a.pki.caBundlePem);
    assert.equal(b.pki.serverCertPem, a.pki.serverCertPem);
    assert.equal(b.pki.serverKeyPem, a.pki.serverKeyPem);
    assert.equal(b.clusterId, a.clusterId);
    // The second home holds the stored copy, so it runs as a single controller always has.
    assert.equal(
      readFileSync(join(homeB, 'pki', pkiFileNames.signingKey), 'utf8'),
      readFileSync(join(homeA, 'pki', pkiFileNames.signingKey), 'utf8'),
    );
  });

  it('refuses a home whose CA differs from the stored one instead of overwriting it', async () => {
    const other = tempFolder();
    await ensurePki({ home: other, advertisedHost: 'ctrl.example.com', now });
    const before = readFileSync(join(other, 'pki', pkiFileNames.rootKey), 'utf8');
    await assert.rejects(
      ensureSharedPki(await openShared(), { home: other, advertisedHost: 'ctrl.example.com', now }),
      /differs from the CA stored in the database/,
    );
    assert.equal(readFileSync(join(other, 'pki', pkiFileNames.rootKey), 'utf8'), before);
  });

  it("stores an existing home's PKI on its first start with the database", async () => {
    const home = tempFolder();
    const existing = await ensurePki({ home, advertisedHost: 'localhost', now });
    const store = await openSqliteStore({ file: join(home, 'ctrl.db'), migrations });
    stores.push(store);
    const shared = await ensureSharedPki(store, { home, advertisedHost: 'localhost', now });
    assert.equal(shared.pki.caBundlePem, existing.caBundlePem);
    assert.equal(shared.pki.serverCertPem, existing.serverCertPem);
    const fresh = tempFolder();
    const again = await ensureSharedPki(store, { home: fresh, advertisedHost: 'localhost', now });
    assert.equal(again.pki.serverKeyPem, existing.serverKeyPem);
  });
});
