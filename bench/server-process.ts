// The servers under load (the controller, the hello server), each in its own child process: start, wait until
// it answers over HTTPS, read its memory and CPU time from /proc, stop it with SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { onCleanup } from './cleanup.js';
import { httpsRequest } from './https-client.js';

export interface ServerProcess {
  name: string;
  pid: number;
  baseUrl: string;
  /** Instances of one controller the load is spread over (baseUrl is the first); absent: baseUrl alone. */
  baseUrls?: string[];
  /** Resident set size in MB, from /proc/<pid>/status (VmRSS). */
  rssMb: () => number;
  /** Peak resident set size so far in MB (VmHWM). */
  peakRssMb: () => number;
  /** CPU time used so far by all the process's threads (user + system), in seconds. */
  cpuSeconds: () => number;
  stop: () => Promise<void>;
}

export interface ServerStart {
  name: string;
  /** Arguments after `node --import tsx`. */
  args: string[];
  port: number;
  /** The address it listens on (default loopback). */
  host?: string;
  /** A path that answers 200 once the server is ready. */
  readyPath: string;
  cwd: string;
  timeoutMs?: number;
  /** Where the server's stdout goes instead of a pipe the harness drains (a log file, as in production). */
  stdoutFile?: string;
}

/** Our controller serving on loopback: its entry point, home, API port and control port (the API's unless given). */
export function loopbackControllerArgs(home: string, port: number, ctrlPort = port): string[] {
  return [
    'src/main.ts',
    '--home',
    home,
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--ctrl-port',
    String(ctrlPort),
  ];
}

const OUTPUT_TAIL_LINES = 40;

export async function startServer(start: ServerStart): Promise<ServerProcess> {
  // node itself, not `npx tsx`: the pid must be the server's, not a wrapper's, for the RSS to mean anything.
  // ZITI_BENCH_CPU_PROF=<dir>: a V8 CPU profile of the server, written there when it stops (node refuses --cpu-prof
  // in NODE_OPTIONS, so it has to be an argument).
  const profile = process.env.ZITI_BENCH_CPU_PROF;
  const args = [...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []), '--import', 'tsx', ...start.args];
  const stdout = start.stdoutFile ? openSync(start.stdoutFile, 'a') : 'pipe';
  const child = spawn(process.execPath, args, { cwd: start.cwd, stdio: ['ignore', stdout, 'pipe'] });
  if (typeof stdout === 'number') closeSync(stdout);
  const tail = captureTail(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const removeCleanup = onCleanup(
    async () => void (await stopChild(child, exited)),
    () => child.kill('SIGKILL'),
  );
  const baseUrl = `https://${start.host ?? '127.0.0.1'}:${start.port}`;
  try {
    await waitReady(`${baseUrl}${start.readyPath}`, exited, start.timeoutMs ?? 30_000);
  } catch (error) {
    await stopChild(child, exited);
    removeCleanup();
    throw new Error(`${start.name} did not start: ${(error as Error).message}\n${tail().join('\n')}`);
  }
  const pid = child.pid!;
  return {
    name: start.name,
    pid,
    baseUrl,
    rssMb: () => readRssMb(pid),
    peakRssMb: () => readRssMb(pid, 'VmHWM'),
    cpuSeconds: () => readCpuSeconds(pid),
    stop: async () => {
      removeCleanup();
      const code = await stopChild(child, exited);
      if (code !== 0) process.stderr.write(`${start.name} exited with ${code}:\n${tail().join('\n')}\n`);
    },
  };
}

async function waitReady(url: string, exited: Promise<number | null>, timeoutMs: number): Promise<void> {
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (hasExited) throw new Error('the process exited');
    const status = await httpsRequest(url, { timeoutMs: 1000 }).then(
      (reply) => reply.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no 200 from ${url} within ${timeoutMs} ms`);
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/** Keeps the last lines of the child's output, shown only when it fails. */
function captureTail(child: ChildProcess): () => string[] {
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((line) => line.length > 0),
    );
    lines.splice(0, Math.max(0, lines.length - OUTPUT_TAIL_LINES));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => lines;
}

/**
 * The process and its descendants: a controller started with `workers` serves from child processes, and its memory
 * and CPU are theirs and the primary's together.
 */
function processTree(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    // The process is gone, or the kernel does not list children: count the process alone.
  }
  return [pid, ...children.flatMap(processTree)];
}

export function readRssMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  return processTree(pid).reduce((sum, one) => sum + readOneRssMb(one, field), 0);
}

function readOneRssMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(status);
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

// Linux reports /proc times in USER_HZ, which the kernel ABI fixes at 100 on every architecture Node runs on.
const TICKS_PER_SECOND = 100;

export function readCpuSeconds(pid: number): number {
  return processTree(pid).reduce((sum, one) => sum + readOneCpuSeconds(one), 0);
}

function readOneCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name (which may contain spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU time all processes on the machine spent busy so far (every core, idle and I/O wait excluded), in seconds. */
export function readMachineBusySeconds(): number {
  // The first line of /proc/stat: "cpu user nice system idle iowait irq softirq steal …", summed over all cores.
  const firstLine = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [, user, nice, system, , , irq, softirq, steal] = firstLine.trim().split(/\s+/);
  const busy = [user, nice, system, irq, softirq, steal].reduce((sum, ticks) => sum + Number(ticks ?? 0), 0);
  return busy / TICKS_PER_SECOND;
}

export { freePort } from '../scripts/free-port.js';

/**
 * CPU time so far of the PostgreSQL server processes serving `database` (their titles read `postgres: <cluster>:
 * <user> <database> <client> <state>`), for what a request costs the database server too. Monotonic: a backend
 * that has exited keeps the time last read of it (what it used after that read is not counted).
 */
export function databaseBackendsCpu(database: string): () => number {
  const seen = new Map<number, number>();
  const marker = ` ${database} `;
  return () => {
    for (const entry of readdirSync('/proc')) {
      const pid = Number(entry);
      if (!Number.isInteger(pid)) continue;
      try {
        const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (title.startsWith('postgres: ') && title.includes(marker)) seen.set(pid, readOneCpuSeconds(pid));
      } catch {
        // Gone between the listing and the read.
      }
    }
    return [...seen.values()].reduce((sum, seconds) => sum + seconds, 0);
  };
}
