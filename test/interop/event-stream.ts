// `ziti fabric stream events` left running while things happen: the v1.1.8 CLI prints each event's JSON on a line
// (stream_events.go HandleReceive), so the events it got are read back from its output as they come.
import { spawn, type ChildProcess } from 'node:child_process';
import { zitiEnv } from '../../scripts/upstream.js';
import { until } from './network.js';

export class EventStream {
  readonly #child: ChildProcess;
  output = '';

  /** Starts `ziti fabric stream events --verbose <flags>` with the CLI configuration (login) kept in `home`. */
  constructor(binary: string, home: string, flags: string[]) {
    this.#child = spawn(binary, ['fabric', 'stream', 'events', '--verbose', ...flags], {
      cwd: home,
      env: zitiEnv({ HOME: home, ZITI_CONFIG_DIR: home }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.#child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
  }

  /** Waits for the controller's answer to the request (`event streaming started: success`). */
  started(): Promise<true> {
    return until(
      () => `event streaming started\n${this.output}`,
      () => Promise.resolve(/event streaming started: success/.test(this.output) || undefined),
      15_000,
    );
  }

  /** The events printed so far: every output line that is a JSON object. */
  events(): Record<string, unknown>[] {
    return this.output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** Waits until an event matching `test` has been printed, and answers it. */
  waitFor(what: string, test: (event: Record<string, unknown>) => boolean, ms = 30_000) {
    return until(
      () => `${what} in the stream\n${this.output.slice(-3000)}`,
      () => Promise.resolve(this.events().find(test)),
      ms,
    );
  }

  stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.kill('SIGTERM');
    return exited;
  }
}
