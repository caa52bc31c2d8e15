// Reads what an upstream controller's settings file names (its database, its PKI files) and writes the new home's
// settings and PKI copies. Upstream's own files are only ever read: rolling back is starting upstream again.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { getPath, isJsonObject, setPath } from '../lib/object-path.js';
import { errorMessage } from '../lib/error-message.js';
import { settingSpecs } from '../settings/settings.schema.js';
import { expandEnv, isUpstreamFile, translateUpstreamFile } from '../settings/upstream-file.js';

export class MigrationError extends Error {}

export interface UpstreamSettings {
  file: string;
  /** The bbolt database (`db:`), resolved against the file's folder. */
  database: string;
  /** The settings at this controller's paths (upstream-file.ts). */
  settings: Record<string, unknown>;
  /** Upstream's keys without a meaning here. */
  ignored: string[];
}

export function readUpstreamSettings(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): UpstreamSettings {
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new MigrationError(`cannot read upstream's settings file ${file}: ${errorMessage(error)}`);
  }
  if (!isJsonObject(parsed) || !isUpstreamFile(parsed))
    throw new MigrationError(`${file} is not an upstream controller settings file (no "v: 3")`);
  const known = settingSpecs.map((spec) => spec.yamlPath);
  const { yaml, ignored } = translateUpstreamFile(parsed, known, env);
  const db = expandEnv(parsed.db, env);
  if (typeof db !== 'string' || db === '') throw new MigrationError(`${file} names no database (db:)`);
  return {
    file,
    database: resolve(dirname(file), db),
    settings: yaml,
    // `db` is what the import reads; it means nothing to the new home's settings.
    ignored: ignored.filter((key) => key !== 'db'),
  };
}

/** bbolt holds an exclusive flock while upstream runs (bolt_unix.go flock): a shared one fails then. */
export function isDatabaseInUse(database: string): boolean | undefined {
  const probe = spawnSync('flock', ['--shared', '--nonblock', database, 'true'], { encoding: 'utf8' });
  if (probe.error) return undefined;
  return probe.status !== 0;
}

/** The PKI settings (upstream's keys) and the file each is copied to in the new home. */
const pkiParts = [
  { path: 'identity.server_cert', copy: 'server.chain.pem', required: true },
  { path: 'identity.server_key', copy: 'server.key', required: false },
  { path: 'identity.key', copy: 'key.pem', required: false },
  { path: 'identity.ca', copy: 'ca-bundle.pem', required: true },
  { path: 'edge.enrollment.signingCert.cert', copy: 'signing.cert.pem', required: true },
  { path: 'edge.enrollment.signingCert.key', copy: 'signing.key.pem', required: true },
] as const;

const UPSTREAM_PKI_FOLDER = 'pki/upstream';

/** Refuses a home that holds anything: an import never mixes two networks or overwrites a PKI. */
export function requireEmptyHome(home: string): void {
  if (existsSync(home) && readdirSync(home).length > 0)
    throw new MigrationError(`${home} is not empty: the new home must be a new or empty folder`);
}

/**
 * Copies the PKI files upstream's settings name into `<home>/pki/upstream/` (keys 0600) and writes `<home>/ctrl.yml`
 * with the settings, the PKI paths pointing at the copies; returns the settings file written.
 */
export function writeNewHome(home: string, upstream: UpstreamSettings): string {
  const settings = structuredClone(upstream.settings);
  const folder = join(home, UPSTREAM_PKI_FOLDER);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(home, 0o700);
  for (const { path, copy, required } of pkiParts) {
    const source = getPath(settings, path);
    if (typeof source !== 'string') {
      if (required)
        throw new MigrationError(`${upstream.file} names no ${path}: upstream's PKI cannot be carried over`);
      continue;
    }
    writeFileSync(join(folder, copy), readSource(source, dirname(upstream.file), path), {
      mode: copy.includes('key') ? 0o600 : 0o644,
    });
    setPath(settings, path, `${UPSTREAM_PKI_FOLDER}/${copy}`);
  }
  const file = join(home, 'ctrl.yml');
  const header = `# Written by npm run migrate:upstream from ${upstream.file}; upstream's files were only read.\n`;
  writeFileSync(file, header + stringifyYaml(settings), { mode: 0o600 });
  return file;
}

function readSource(source: string, base: string, path: string): string {
  if (source.startsWith('pem:')) return source.slice('pem:'.length);
  const file = source.startsWith('file://') ? fileURLToPath(source) : resolve(base, source);
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new MigrationError(`cannot read ${path} (${file}): ${errorMessage(error)}`);
  }
}
