// Cleanup that runs once however the run ends: normally, on an error, or on Ctrl-C / SIGTERM.
type Task = () => void | Promise<void>;

const tasks: Task[] = [];
const lastResort: Array<() => void> = [];
let running: Promise<void> | undefined;
let interrupted = false;

/** True once Ctrl-C or SIGTERM arrived: the errors that follow (children killed mid-run) are expected. */
export function isInterrupted(): boolean {
  return interrupted;
}

/**
 * Registers a task; tasks run newest first. `sync` is called from the process 'exit' event when the async cleanup
 * never got to run (e.g. an uncaught error), so children are not left behind.
 */
export function onCleanup(task: Task, sync?: () => void): () => void {
  tasks.push(task);
  if (sync) lastResort.push(sync);
  return () => {
    remove(tasks, task);
    if (sync) remove(lastResort, sync);
  };
}

function remove<T>(list: T[], item: T): void {
  const index = list.indexOf(item);
  if (index >= 0) list.splice(index, 1);
}

export function runCleanup(): Promise<void> {
  running ??= (async () => {
    while (tasks.length > 0) {
      const task = tasks.pop()!;
      try {
        await task();
      } catch (error) {
        process.stderr.write(`cleanup: ${(error as Error).message}\n`);
      }
    }
    lastResort.length = 0;
  })();
  return running;
}

export function installSignalCleanup(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      interrupted = true;
      process.stderr.write(`\n${signal}: stopping children and removing temporary folders…\n`);
      void runCleanup().finally(() => process.exit(130));
    });
  }
  process.on('exit', () => {
    for (const kill of lastResort) kill();
  });
}
