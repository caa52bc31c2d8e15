// The version, revision and build date this controller reports, read once at start.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { BuildInfo } from '../app-deps.js';
import { parseJsonValue } from '../lib/json-value.js';
import { isJsonObject } from '../lib/object-path.js';

// In a build (scripts/build.mjs) this is dist/package.json, which also records the build's revision and date.
const packageJson = packageInfo(parseJsonValue(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')));

function packageInfo(document: unknown): { version: string; build?: { revision: string; date: string } } {
  const { version, build } = isJsonObject(document) ? document : {};
  if (typeof version !== 'string') throw new Error('package.json has no version');
  const { revision, date } = isJsonObject(build) ? build : {};
  return typeof revision === 'string' && typeof date === 'string'
    ? { version, build: { revision, date } }
    : { version };
}

/** The upstream release whose wire behaviour this controller reproduces. */
export const WIRE_VERSION = 'v1.1.8';

/** Go's GOOS / GOARCH names for this platform, as upstream's version info writes them. */
export const goOs = (): string => (process.platform === 'win32' ? 'windows' : process.platform);
const GO_ARCH: Partial<Record<string, string>> = { x64: 'amd64', ia32: '386' };
export const goArch = (): string => GO_ARCH[process.arch] ?? process.arch;

/** The control hello's version header: `version|revision|buildDate|os|arch` (foundation versions.StdVersionEncDec). */
export function versionHeader(build: BuildInfo): string {
  return [build.wireVersion, build.revision, build.buildDate, goOs(), goArch()].join('|');
}

/**
 * Revision and date come from the build when running compiled, from git when running from a checkout, and
 * otherwise from the start time.
 */
export function readBuildInfo(now: Date = new Date()): BuildInfo {
  const format = (date: Date) => date.toISOString().slice(0, 19).replace('T', ' ');
  if (packageJson.build)
    return {
      version: `v${packageJson.version}`,
      wireVersion: WIRE_VERSION,
      revision: packageJson.build.revision,
      buildDate: format(new Date(packageJson.build.date)),
    };
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: new URL('../..', import.meta.url), stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim();
    } catch {
      return undefined;
    }
  };
  const revision = git('rev-parse', '--short=12', 'HEAD') ?? 'local';
  const committed = git('log', '-1', '--format=%cI');
  const date = committed ? new Date(committed) : now;
  return { version: `v${packageJson.version}`, wireVersion: WIRE_VERSION, revision, buildDate: format(date) };
}
