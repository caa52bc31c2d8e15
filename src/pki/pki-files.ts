// The controller PKI's files under `<home>/pki`: names, permissions (keys 0600, folder 0700) and safe writes.
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const pkiFileNames = {
  rootCert: 'root-ca.cert.pem',
  rootKey: 'root-ca.key.pem',
  signingCert: 'signing-ca.cert.pem',
  signingKey: 'signing-ca.key.pem',
  serverCert: 'server.cert.pem',
  serverKey: 'server.key.pem',
} as const;

export type PkiFile = keyof typeof pkiFileNames;

/** The PKI folder, created if needed and always reset to 0700 since it holds private keys. */
export async function preparePkiFolder(home: string): Promise<string> {
  const folder = join(home, 'pki');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await chmod(folder, 0o700);
  return folder;
}

/** A PKI file's text, or undefined when it does not exist. */
export async function readPkiFile(folder: string, file: PkiFile): Promise<string | undefined> {
  try {
    return await readFile(join(folder, pkiFileNames[file]), 'utf8');
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Writes a PKI file through a temporary file and a rename, so a crash never leaves a half-written key or
 * certificate. Keys get 0600; certificates 0644 (public, and the folder is 0700 anyway).
 */
export async function writePkiFile(folder: string, file: PkiFile, content: string): Promise<void> {
  const path = join(folder, pkiFileNames[file]);
  const temporaryPath = `${path}.tmp`;
  const mode = file.endsWith('Key') ? 0o600 : 0o644;
  // A leftover temporary file would keep its old mode, since `mode` only applies when a file is created.
  await rm(temporaryPath, { force: true });
  await writeFile(temporaryPath, content, { mode, flag: 'wx' });
  await rename(temporaryPath, path);
}
