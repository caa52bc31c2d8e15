// `npm run wire:compare -- <before.json> <after.json>`: compares two wire records (wire-record.ts) answer by answer
// and prints every difference; exits non-zero unless they are the same.
import { readFileSync } from 'node:fs';
import { compareRecords, type WireRecord } from './wire.js';

const MAX_SHOWN = 200;

function main(): number {
  const files = process.argv.slice(2);
  if (files.length !== 2) throw new Error('usage: npm run wire:compare -- <before.json> <after.json>');
  // The files are this tool's own output; a hand-edited one that is not a record fails on its first missing field.
  const [before, after] = files.map((file) => JSON.parse(readFileSync(file, 'utf8')) as WireRecord) as [
    WireRecord,
    WireRecord,
  ];
  const { differences, identical } = compareRecords(before, after);
  for (const line of differences.slice(0, MAX_SHOWN)) process.stdout.write(`${line}\n`);
  if (differences.length > MAX_SHOWN) process.stdout.write(`… and ${differences.length - MAX_SHOWN} more\n`);
  process.stdout.write(
    `${before.answers.length} and ${after.answers.length} answers, ${identical} identical, ${differences.length} differences\n`,
  );
  return differences.length === 0 ? 0 : 1;
}

try {
  process.exit(main());
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
