// The controller's PKI named by path, under upstream's own keys (`identity`, `edge.enrollment.signingCert`), so an
// upstream settings file keeps its meaning: when set, the controller runs on those files (src/pki/file-pki.ts)
// instead of the PKI it makes in `<home>/pki`. Each value is a path (relative to the settings file's folder), a
// `file://` URL or inline `pem:` text, as upstream reads them (identity.go LoadIdentity).
import type { Parse, SettingSpec } from './setting-spec.js';

export interface PkiSettings {
  pkiServerCert: string | undefined;
  /** Upstream's `identity.server_key`; when absent, `identity.key` is the server certificate's key too. */
  pkiServerKey: string | undefined;
  pkiKey: string | undefined;
  pkiCa: string | undefined;
  pkiSigningCert: string | undefined;
  pkiSigningKey: string | undefined;
}

const pkiSource: Parse<string> = (raw) => {
  if (typeof raw !== 'string' || raw.trim() === '') throw new Error('must be a file path, a file:// URL or pem: text');
  return raw;
};

export const pkiSettingSpecs: readonly SettingSpec<PkiSettings>[] = [
  { key: 'pkiServerCert', yamlPath: 'identity.server_cert', env: 'ZITI_PKI_SERVER_CERT', parse: pkiSource },
  { key: 'pkiServerKey', yamlPath: 'identity.server_key', env: 'ZITI_PKI_SERVER_KEY', parse: pkiSource },
  { key: 'pkiKey', yamlPath: 'identity.key', env: 'ZITI_PKI_KEY', parse: pkiSource },
  { key: 'pkiCa', yamlPath: 'identity.ca', env: 'ZITI_PKI_CA', parse: pkiSource },
  {
    key: 'pkiSigningCert',
    yamlPath: 'edge.enrollment.signingCert.cert',
    env: 'ZITI_PKI_SIGNER_CERT',
    parse: pkiSource,
  },
  { key: 'pkiSigningKey', yamlPath: 'edge.enrollment.signingCert.key', env: 'ZITI_PKI_SIGNER_KEY', parse: pkiSource },
];
