// The controller's settings: one typed table that says, per key, where it may come from and how it is checked. Each
// section (`*.settings.ts`) declares its keys and their specs; this module puts them together and checks the rules
// between them.
import { controlPlaneSettingSpecs, type ControlPlaneSettings } from './control-plane.settings.js';
import { databaseSettingSpecs, type DatabaseSettings } from './database.settings.js';
import { edgeApiSettingSpecs, type EdgeApiSettings } from './edge-api.settings.js';
import { httpSettingSpecs, type HttpSettings } from './http.settings.js';
import { networkSettingSpecs, type NetworkSettings } from './network.settings.js';
import { loginThrottleSettingSpecs, type LoginThrottleSettings } from './login-throttle.settings.js';
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
    ProcessSettings {
  home: string;
  /** The YAML file the settings were read from, if any. */
  configFile: string | undefined;
}

export class SettingsError extends Error {}

/** Every setting except `home` and `configFile`, which decide where the others are read from. */
export const settingSpecs: readonly SettingSpec<Omit<Settings, 'home' | 'configFile'>>[] = [
  ...databaseSettingSpecs,
  ...edgeApiSettingSpecs,
  ...controlPlaneSettingSpecs,
  ...networkSettingSpecs,
  ...loginThrottleSettingSpecs,
  ...httpSettingSpecs,
  ...processSettingSpecs,
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
}
