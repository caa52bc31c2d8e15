// Runs upstream's `ziti` CLI with its own configuration folder (where `ziti edge login` keeps the session), never
// the operator's, and returns what it printed and how it exited.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { upstreamBinary, zitiEnv } from '../../scripts/upstream.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ZitiCli {
  run(args: string[]): Promise<CliRun>;
  /** Runs and asserts a zero exit code, showing what the CLI printed when it is not. */
  ok(args: string[]): Promise<CliRun>;
}

export function zitiCli(home: string): ZitiCli {
  mkdirSync(home, { recursive: true });
  const binary = upstreamBinary();
  const env = zitiEnv({ HOME: home, ZITI_CONFIG_DIR: home });
  const run = (args: string[]) =>
    new Promise<CliRun>((resolve, reject) => {
      const child = spawn(binary, args, { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
      child.once('error', reject);
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  return {
    run,
    async ok(args) {
      const result = await run(args);
      if (result.code !== 0)
        throw new Error(`ziti ${args.join(' ')} exited with ${result.code}:\n${result.stdout}\n${result.stderr}`);
      return result;
    },
  };
}
