// The recorded upstream controller's home laid out again as upstream had it (ctrl.yaml naming its database and
// PKI files by path), for the command's tests and by-hand runs.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fixtureFolder, upstreamDatabaseFile } from './imported-app.js';

const pkiLayout: Record<string, string> = {
  'client.cert': 'pki/intermediate-ca/certs/client.cert',
  'server.chain.pem': 'pki/intermediate-ca/certs/server.chain.pem',
  'server.key': 'pki/intermediate-ca/keys/server.key',
  'ca.pem': 'pki/root-ca/certs/root-ca.cert',
  'signing.cert': 'pki/intermediate-ca/certs/intermediate-ca.cert',
  'signing.key': 'pki/intermediate-ca/keys/intermediate-ca.key',
};

/** Writes the upstream home into `home`; returns its settings file. */
export function layOutUpstreamHome(home: string): string {
  for (const [name, path] of Object.entries(pkiLayout)) {
    mkdirSync(dirname(join(home, path)), { recursive: true });
    copyFileSync(join(fixtureFolder, 'pki', name), join(home, path));
  }
  const database = upstreamDatabaseFile(home);
  copyFileSync(database, join(home, 'ctrl.db'));
  const file = join(home, 'ctrl.yaml');
  writeFileSync(file, readFileSync(join(fixtureFolder, 'ctrl.yaml'), 'utf8').replaceAll('${HOME_DIR}', home));
  return file;
}
