// Reads settings with the precedence flags > environment > YAML file > defaults; every error names the key.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { getPath, isJsonObject } from '../lib/object-path.js';
import { checkSettingRelations, settingSpecs, SettingsError, type Settings } from './settings.schema.js';
import { errorMessage } from '../lib/error-message.js';
import { isUpstreamFile, translateUpstreamFile } from './upstream-file.js';

export interface SettingsSources {
  argv?: readonly string[];
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
}

export function loadSettings({ argv = [], env = process.env, cwd = process.cwd() }: SettingsSources = {}): Settings {
  const flags = readFlags(argv);
  const home = resolve(cwd, flags.home ?? env.ZITI_HOME ?? './ziti-home');
  const explicitFile = flags.config ?? env.ZITI_CONFIG;
  const configFile = explicitFile ? resolve(cwd, explicitFile) : defaultConfigFile(home);
  const { yaml, ignored } = configFile
    ? readYaml(configFile, explicitFile !== undefined, env)
    : { yaml: {}, ignored: [] };

  const settings: Record<string, unknown> = { home, configFile, ignoredSettings: ignored };
  for (const spec of settingSpecs) {
    const fromFlag = spec.flag ? flags[spec.flag] : undefined;
    const fromEnv = spec.env ? env[spec.env] : undefined;
    // A key written with no value (null) counts as absent.
    const fromYaml = getPath(yaml, spec.yamlPath) ?? undefined;
    const [raw, source] =
      fromFlag !== undefined
        ? [fromFlag, `--${spec.flag}`]
        : fromEnv !== undefined && fromEnv !== ''
          ? [fromEnv, spec.env]
          : fromYaml !== undefined
            ? [fromYaml, `${configFile}`]
            : [undefined, 'default'];
    if (raw === undefined) {
      settings[spec.key] = spec.default;
      continue;
    }
    try {
      settings[spec.key] = spec.parse(raw);
    } catch (error) {
      throw new SettingsError(`[${spec.yamlPath}] (from ${source}) ${errorMessage(error)}`);
    }
  }
  // Every key of Settings but home and configFile has its spec (settings.schema.test.ts), so each is set above.
  const loaded = settings as unknown as Settings;
  checkSettingRelations(loaded);
  return loaded;
}

function readFlags(argv: readonly string[]): Record<string, string | undefined> {
  const options: Record<string, { type: 'string' }> = { home: { type: 'string' }, config: { type: 'string' } };
  for (const spec of settingSpecs) if (spec.flag) options[spec.flag] = { type: 'string' };
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new SettingsError(errorMessage(error));
  }
}

function defaultConfigFile(home: string): string | undefined {
  const candidate = resolve(home, 'ctrl.yml');
  return existsSync(candidate) ? candidate : undefined;
}

function readYaml(
  file: string,
  mustExist: boolean,
  env: Readonly<Record<string, string | undefined>>,
): { yaml: Record<string, unknown>; ignored: string[] } {
  if (!existsSync(file)) {
    if (mustExist) throw new SettingsError(`[config] settings file ${file} does not exist`);
    return { yaml: {}, ignored: [] };
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new SettingsError(`[config] ${file} is not valid YAML: ${errorMessage(error)}`);
  }
  if (parsed === null || parsed === undefined) return { yaml: {}, ignored: [] };
  if (!isJsonObject(parsed)) throw new SettingsError(`[config] ${file} must hold a YAML mapping`);
  // Upstream's own file is taken as written; ours is checked strictly, so that a mistyped key is named.
  if (isUpstreamFile(parsed)) return translateUpstreamFile(parsed, knownPaths(), env);
  rejectUnknownKeys(parsed, file);
  return { yaml: parsed, ignored: [] };
}

const knownPaths = () => settingSpecs.map((spec) => spec.yamlPath);

/** A mistyped key would otherwise be ignored silently; name it instead. */
function rejectUnknownKeys(yaml: Record<string, unknown>, file: string, prefix = ''): void {
  const known = knownPaths();
  for (const [key, value] of Object.entries(yaml)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (known.includes(path)) continue;
    if (isJsonObject(value) && known.some((k) => k.startsWith(`${path}.`))) {
      rejectUnknownKeys(value, file, path);
      continue;
    }
    throw new SettingsError(`[${path}] unknown setting in ${file}`);
  }
}
