// The PKI every instance on one database shares: the first instance to start creates it (or brings its home's)
// and stores it in the database; every other instance loads it from there. So certificates, enrollment JWTs (signed
// with the server key, `kid` the server certificate's fingerprint) and API-session certificates from one instance
// are valid on all, and clients see one server identity behind a load balancer.
//
// The database copy wins: an instance writes it into its home's pki/ folder and works from the files as a single
// controller always has (ensure-pki.ts), so a home made before the copy existed keeps its PKI, which becomes the
// stored one on its first start. A home whose CA files differ from the stored CA is refused rather than overwritten:
// its CA may have issued certificates that would silently stop working.
import { formatTimestamp } from '../lib/clock.js';
import { newCuid } from '../lib/ids.js';
import { clusterSecrets, putClusterSecret } from '../store/queries/cluster.js';
import type { Db, Store } from '../store/store.js';
import { loadFilePki, type PkiFiles } from './file-pki.js';
import { ensurePki, type EnsurePkiOptions, type Pki } from './ensure-pki.js';
import { pkiFileNames, preparePkiFolder, readPkiFile, writePkiFile, type PkiFile } from './pki-files.js';
import { keysOf } from '../lib/collections.js';

const files = keysOf(pkiFileNames);
const caFiles: ReadonlySet<PkiFile> = new Set(['rootCert', 'rootKey', 'signingCert', 'signingKey']);
const CLUSTER_ID = 'clusterId';

export interface SharedPki {
  pki: Pki;
  /** Made once, by the first instance on the database; the same on every instance ever after. */
  clusterId: string;
}

export async function ensureSharedPki(
  store: Store,
  options: EnsurePkiOptions & { now: () => Date; files?: PkiFiles },
): Promise<SharedPki> {
  // A PKI named by path (an upstream controller's) is every instance's own settings, never copied to the database.
  if (options.files) return { pki: loadFilePki(options.files), clusterId: await ensureClusterId(store, options.now) };
  // Inside one write transaction: instances starting together take turns, and the second finds the first's PKI.
  return store.transaction(async (tx) => {
    const stored = await clusterSecrets(tx);
    const folder = await preparePkiFolder(options.home);
    for (const file of files) {
      const text = stored.get(file);
      if (text === undefined) continue;
      const local = await readPkiFile(folder, file);
      if (local === text) continue;
      if (local !== undefined && caFiles.has(file)) {
        throw new Error(
          `${folder}/${pkiFileNames[file]} differs from the CA stored in the database: this home belongs to another controller network`,
        );
      }
      await writePkiFile(folder, file, text);
    }
    const pki = await ensurePki(options);
    // First start, or a renewed server certificate (another advertised host, near expiry): the files become the copy.
    const at = formatTimestamp(options.now());
    for (const file of files) {
      const local = await readPkiFile(folder, file);
      if (local !== undefined && local !== stored.get(file)) await putClusterSecret(tx, file, local, at);
    }
    return { pki, clusterId: await clusterIdIn(tx, stored, options.now) };
  });
}

function ensureClusterId(store: Store, now: () => Date): Promise<string> {
  return store.transaction(async (tx) => clusterIdIn(tx, await clusterSecrets(tx), now));
}

async function clusterIdIn(tx: Db, stored: Map<string, string>, now: () => Date): Promise<string> {
  const clusterId = stored.get(CLUSTER_ID);
  if (clusterId !== undefined) return clusterId;
  const created = newCuid(now());
  await putClusterSecret(tx, CLUSTER_ID, created, formatTimestamp(now()));
  return created;
}
