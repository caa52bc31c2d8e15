// The `file` handler's output as upstream writes it (lumberjack): appended lines, and once the file would pass
// `maxsizemb` it is renamed to `<name>-<UTC time>.<ext>` and a new one started; past `maxbackups` (0: all kept) the
// oldest renamed files are removed.
import { createWriteStream, type WriteStream } from 'node:fs';
import { readdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import type { LineWriter } from './sinks.js';

export interface FileWriterOptions {
  path: string;
  maxSizeBytes: number;
  maxBackups: number;
  now?: () => Date;
}

export async function openFileWriter(options: FileWriterOptions): Promise<LineWriter> {
  const { path, maxSizeBytes, maxBackups } = options;
  const now = options.now ?? (() => new Date());
  let size = await stat(path).then(
    (found) => found.size,
    () => 0,
  );
  let stream = await openStream(path);

  const rotate = async () => {
    await endStream(stream);
    await rename(path, backupName(path, now()));
    if (maxBackups > 0) await pruneBackups(path, maxBackups);
    stream = await openStream(path);
    size = 0;
  };

  return {
    async write(line) {
      const bytes = Buffer.byteLength(line) + 1;
      if (size > 0 && size + bytes > maxSizeBytes) await rotate();
      size += bytes;
      await new Promise<void>((resolve, reject) =>
        stream.write(`${line}\n`, (error) => (error ? reject(error) : resolve())),
      );
    },
    close: () => endStream(stream),
  };
}

function openStream(path: string): Promise<WriteStream> {
  return new Promise((resolve, reject) => {
    const stream = createWriteStream(path, { flags: 'a', mode: 0o640 });
    stream.once('open', () => resolve(stream));
    stream.once('error', reject);
  });
}

function endStream(stream: WriteStream): Promise<void> {
  return new Promise((resolve) => stream.end(() => resolve()));
}

/** lumberjack's backup name: `name-2006-01-02T15-04-05.000.ext`. */
function backupName(path: string, at: Date): string {
  const ext = extname(path);
  const stamp = at.toISOString().replace(/:/g, '-').replace('Z', '');
  return join(dirname(path), `${basename(path, ext)}-${stamp}${ext}`);
}

async function pruneBackups(path: string, keep: number): Promise<void> {
  const ext = extname(path);
  const prefix = `${basename(path, ext)}-`;
  const backups = (await readdir(dirname(path)))
    .filter((name) => name.startsWith(prefix) && name.endsWith(ext) && name !== basename(path))
    .sort();
  for (const name of backups.slice(0, Math.max(0, backups.length - keep)))
    await unlink(join(dirname(path), name)).catch(() => undefined);
}
