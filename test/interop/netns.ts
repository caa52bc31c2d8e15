// A network namespace for the tproxy interop step (issue 30 item 1): a router in `tproxy` mode writes iptables rules,
// adds its DNS range to `lo` and answers DNS on 127.0.0.1:53, all of which must stay out of the machine's own
// network. The namespace gets one veth pair to the host (a /30 of 10.213.0.0/16 not already in use), so programs in
// it reach the controller at the host's end; the host's routes, iptables and resolver are never touched, and
// deleting the namespace removes its rules, its addresses and both ends of the pair.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';

export interface Namespace {
  name: string;
  /** The host's end of the veth pair (where programs in the namespace reach the host). */
  hostIp: string;
  /** The namespace's end. */
  nsIp: string;
  /** The command line that runs `command` inside the namespace. */
  exec(command: string, args: string[]): { command: string; args: string[] };
  remove(): void;
}

function run(args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Why this machine cannot host the step (not root, no `ip`, no `iptables`), or undefined when it can. */
export function namespaceUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'tproxy needs root (network namespaces and iptables)';
  if (spawnSync('ip', ['-V']).status !== 0) return 'no `ip` command (iproute2)';
  // The router's tproxy interceptor runs the `iptables` command (coreos/go-iptables) inside the namespace.
  if (spawnSync('iptables', ['--version']).status !== 0) return 'no `iptables` command (the router runs it)';
  return undefined;
}

export function createNamespace(): Namespace {
  const tag = randomBytes(3).toString('hex');
  const name = `zt-tproxy-${tag}`;
  const [hostIf, nsIf] = [`zth${tag}`, `ztn${tag}`];
  const used = run(['-o', '-4', 'addr', 'show']);
  let subnet: string;
  do subnet = `10.213.${randomInt(0, 256)}`;
  while (used.includes(`${subnet}.`));
  const [hostIp, nsIp] = [`${subnet}.1`, `${subnet}.2`];
  const inside = (...args: string[]) => run(['netns', 'exec', name, 'ip', ...args]);
  run(['netns', 'add', name]);
  try {
    run(['link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf]);
    run(['link', 'set', nsIf, 'netns', name]);
    run(['addr', 'add', `${hostIp}/30`, 'dev', hostIf]);
    run(['link', 'set', hostIf, 'up']);
    inside('addr', 'add', `${nsIp}/30`, 'dev', nsIf);
    inside('link', 'set', nsIf, 'up');
    inside('link', 'set', 'lo', 'up');
  } catch (error) {
    run(['netns', 'del', name]);
    throw error;
  }
  return {
    name,
    hostIp,
    nsIp,
    exec: (command, args) => ({ command: 'ip', args: ['netns', 'exec', name, command, ...args] }),
    remove() {
      // The host's end goes with its peer; a pair whose namespace add failed half-way is removed by name.
      run(['netns', 'del', name]);
      if (run(['-o', 'link', 'show']).includes(`${hostIf}@`)) run(['link', 'del', hostIf]);
    },
  };
}
