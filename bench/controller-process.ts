// Starts the controller under test on a bench home folder, with a known admin password and quiet logs.
import { ROOT } from './scenario-run.js';
import { loopbackControllerArgs, startServer, type ServerProcess } from './server-process.js';
import { databaseUrlFor } from './bench-store.js';
import { say, settings } from './settings.js';

export const ADMIN_USERNAME = 'admin';
export const ADMIN_PASSWORD = 'Bench-Admin-Password-1!';

export interface ControllerStart {
  /** Further flags, after the defaults (a later `--log-level` wins). */
  args?: string[];
  /** Node's own flags, before the entry point (`--cpu-prof`). */
  nodeArgs?: string[];
  /** Where its stdout (the log) goes; by default the harness keeps the last lines. */
  stdoutFile?: string;
}

export async function startController(
  home: string,
  port: number,
  options: ControllerStart = {},
): Promise<ServerProcess> {
  const started = performance.now();
  // The control plane on the API port unless options.args names its own (bench:routers).
  const args = [...(options.nodeArgs ?? []), ...loopbackControllerArgs(home, port)];
  const databaseUrl = await databaseUrlFor(home);
  if (databaseUrl) args.push('--database-url', databaseUrl);
  if (settings.workers > 1) args.push('--workers', String(settings.workers));
  args.push('--password', ADMIN_PASSWORD, '--log-level', 'warn', ...(options.args ?? []));
  const readyPath = '/edge/client/v1/version';
  const stdout = options.stdoutFile ? { stdoutFile: options.stdoutFile } : {};
  const controller = await startServer({ name: 'controller', args, port, readyPath, cwd: ROOT, ...stdout });
  say(`controller ready in ${((performance.now() - started) / 1000).toFixed(1)} s (pid ${controller.pid})`);
  return controller;
}
