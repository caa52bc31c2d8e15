// Prints where a controller's CPU went under load, from the `--cpu-prof` profile it wrote: the heaviest functions
// (self time) and the share of each package, counting only the samples taken after `loadFromMs` (start-up, module
// loading and tsx compiling are not a request's cost). Used by profile-requests.ts and profile-sessions.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function printProfile(profileDir: string, loadFromMs: number): void {
  // One profile per thread (`CPU.<date>.<time>.<pid>.<thread>.<n>`): the main thread's, 0, sorts first.
  const file = readdirSync(profileDir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .sort()[0];
  if (!file) throw new Error(`no profile written in ${profileDir}`);
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile;
  const selfMs = new Map<number, number>();
  // Only the samples taken under load: start-up (module loading, tsx compiling) is not a request's cost.
  let elapsedMs = 0;
  profile.samples.forEach((id, index) => {
    const deltaMs = (profile.timeDeltas[index] ?? 0) / 1000;
    elapsedMs += deltaMs;
    if (elapsedMs >= loadFromMs) selfMs.set(id, (selfMs.get(id) ?? 0) + deltaMs);
  });

  const where = (node: ProfileNode) => {
    const url = node.callFrame.url;
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
    if (pkg) return pkg;
    if (url.includes('/src/')) return `src/${url.split('/src/')[1]!.split('/')[0]}`;
    return url.startsWith('node:')
      ? 'node'
      : node.callFrame.functionName.startsWith('(')
        ? node.callFrame.functionName
        : 'other';
  };
  const idle = new Set(['(idle)', '(program)', '(garbage collector)']);
  const busy = profile.nodes.filter(
    (node) => !idle.has(node.callFrame.functionName) || node.callFrame.functionName === '(garbage collector)',
  );
  const total = busy.reduce((sum, node) => sum + (selfMs.get(node.id) ?? 0), 0);
  const share = (ms: number) => `${((ms / total) * 100).toFixed(1)}%`;

  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const node of busy) {
    const ms = selfMs.get(node.id) ?? 0;
    byPackage.set(where(node), (byPackage.get(where(node)) ?? 0) + ms);
    const name = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
  }
  // Inclusive: a sample counts once for every package on its stack (kysely called from src/crud counts for both).
  const parent = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  const inclusive = new Map<string, number>();
  for (const node of busy) {
    const ms = selfMs.get(node.id) ?? 0;
    const seen = new Set<string>();
    for (let at: ProfileNode | undefined = node; at; at = parent.get(at.id)) seen.add(where(at));
    for (const name of seen) inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
  }
  const top = (map: Map<string, number>, n: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
  process.stdout.write(`busy ${total.toFixed(0)} ms (profile: ${join(profileDir, file)})\n\nself time by package:\n`);
  for (const [name, ms] of top(byPackage, 15)) process.stdout.write(`  ${share(ms).padStart(6)}  ${name}\n`);
  process.stdout.write('\ntime with the package on the stack:\n');
  for (const [name, ms] of top(inclusive, 15)) process.stdout.write(`  ${share(ms).padStart(6)}  ${name}\n`);
  process.stdout.write('\nheaviest functions (self time):\n');
  for (const [name, ms] of top(byFunction, 30)) process.stdout.write(`  ${share(ms).padStart(6)}  ${name}\n`);
}
