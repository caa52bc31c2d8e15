// Which instance ran on this home (and worker slot) before this process: a controller killed with kill -9 and started
// again on the same home is the same controller, so the routers its predecessor held are released at once rather
// than when the dead instance's heartbeat lapses (30 s, during which the routers' reconnects would be refused as
// "already connected" and REST would show them online). The id is kept in a file of the home, one per worker slot
// (workers share the home); instances on other homes, here or on other machines, are never mistaken for it.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ID_PATTERN = /^[a-z0-9]{1,64}$/;

/**
 * Records `instanceId` as the one running on `home` in `slot` (a worker's index, or undefined) and returns the id that
 * ran there before, if any.
 */
export function succeedInstance(home: string, slot: number | undefined, instanceId: string): string | undefined {
  const file = join(home, slot === undefined ? 'instance.id' : `instance-${slot}.id`);
  let previous: string | undefined;
  try {
    const text = readFileSync(file, 'utf8').trim();
    // Written by this controller only; anything else is no predecessor anyone could hold routers as.
    if (ID_PATTERN.test(text) && text !== instanceId) previous = text;
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'ENOENT')) throw error;
  }
  // Written whole or not at all: a process killed mid-write leaves the previous id.
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${instanceId}\n`, { mode: 0o600 });
  renameSync(partial, file);
  return previous;
}
