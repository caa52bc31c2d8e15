// The controller's settings: one typed table that says, per key, where it may come from and how it is checked. Each
// section (`*.settings.ts`) declares its keys and their specs; this module puts them together and checks the rules
// between them.
import { controlPlaneSettingSpecs, type ControlPlaneSettings } from './control-plane.settings.js';
import { databaseSettingSpecs, type DatabaseSettings } from './database.settings.js';
import { edgeApiSettingSpecs, type EdgeApiSettings } from './edge-api.settings.js';
import { eventsSettingSpecs, type EventsSettings } from './events.settings.js';
import { httpSettingSpecs, type HttpSettings } from './http.settings.js';
import { networkSettingSpecs, type NetworkSettings } from './network.settings.js';
import { loginThrottleSettingSpecs, type LoginThrottleSettings } from './login-throttle.settings.js';
import { pkiSettingSpecs, type PkiSettings } from './pki.settings.js';
import { processSettingSpecs, type ProcessSettings } from './process.settings.js';
import { durationText, type SettingSpec } from './setting-spec.js';

export interface Settings
  extends
    DatabaseSettings,
    EdgeApiSettings,
    ControlPlaneSettings,
    NetworkSettings,
    LoginThrottleSettings,
    HttpSettings,
    ProcessSettings,
    PkiSettings,
    EventsSettings {
  home: string;
  /** The YAML file the settings were read from, if any. */
  configFile: string | undefined;
  /** Keys of an upstream settings file that mean nothing here (upstream-file.ts), listed once at start. */
  ignoredSettings: readonly string[];
}

export class SettingsError extends Error {}

/** Every setting except `home` and `configFile`, which decide where the others are read from, and what was ignored. */
export const settingSpecs: readonly SettingSpec<Omit<Settings, 'home' | 'configFile' | 'ignoredSettings'>>[] = [
  ...databaseSettingSpecs,
  ...edgeApiSettingSpecs,
  ...controlPlaneSettingSpecs,
  ...networkSettingSpecs,
  ...loginThrottleSettingSpecs,
  ...httpSettingSpecs,
  ...processSettingSpecs,
  ...pkiSettingSpecs,
  ...eventsSettingSpecs,
];

type NumberSetting = { [K in keyof Settings]: Settings[K] extends number ? K : never }[keyof Settings];

/** Rules between settings, checked once all are read; each message names both keys. */
export function checkSettingRelations(settings: Settings): void {
  const pathOf = (key: keyof Settings) => settingSpecs.find((spec) => spec.key === key)?.yamlPath ?? key;
  const atMost = (smaller: NumberSetting, larger: NumberSetting, what: (value: number) => string) => {
    const [a, b] = [settings[smaller], settings[larger]];
    if (a > b)
      throw new SettingsError(`[${pathOf(smaller)}] (${what(a)}) must not exceed [${pathOf(larger)}] (${what(b)})`);
  };
  // Node refuses a headers timeout longer than the request timeout it is part of.
  atMost('headersTimeoutMs', 'requestTimeoutMs', durationText);
  atMost('unauthenticatedBodyLimit', 'authenticatedBodyLimit', (bytes) => `${bytes} bytes`);
  checkPkiFilesComplete(settings, pathOf);
}

/** A PKI named by path is all of it or none: half of upstream's PKI beside half of our own cannot verify anything. */
function checkPkiFilesComplete(settings: Settings, pathOf: (key: keyof Settings) => string): void {
  const parts = ['pkiServerCert', 'pkiCa', 'pkiSigningCert', 'pkiSigningKey'] as const;
  const hasServerKey = settings.pkiServerKey !== undefined || settings.pkiKey !== undefined;
  const given = parts.filter((key) => settings[key] !== undefined);
  if (given.length === 0 && !hasServerKey) return;
  const missing = [...parts.filter((key) => settings[key] === undefined).map(pathOf)];
  if (!hasServerKey) missing.push(`${pathOf('pkiServerKey')} (or ${pathOf('pkiKey')})`);
  if (missing.length > 0)
    throw new SettingsError(`[${missing.join('], [')}] must be set too: a PKI named by path needs every part`);
}
