// `npm run wire:record -- <out.json> [word…]`: replays the differential corpus against our controller alone and
// writes every answer, normalised as the differential harness does (ids numbered, times, tokens and certificates
// as placeholders), to one file. Two such files, from before and after a change, are compared with
// `npm run wire:compare -- a.json b.json` (wire-compare.ts): equal files mean the change kept the wire as it was.
// Words, as for `npm run test:upstream`, replay only the sequences whose names contain one of them.
import { writeFileSync } from 'node:fs';
import { corpus } from './corpus/index.js';
import { startOurPeer } from './peers.js';
import { adminLogin, runSequence, type SequenceFailure } from './replay.js';
import { RunState } from './steps.js';
import { recordAnswer, type WireRecord } from './wire.js';

async function main(): Promise<number> {
  const [out, ...words] = process.argv.slice(2);
  if (!out) throw new Error('usage: npm run wire:record -- <out.json> [word…]');
  const sequences = words.length === 0 ? corpus : corpus.filter((s) => words.some((word) => s.name.includes(word)));
  if (sequences.length === 0) throw new Error(`no sequence matches ${words.join(', ')}`);
  const ours = await startOurPeer();
  try {
    const admin = await adminLogin(ours);
    const record: WireRecord = { sequences: sequences.map((s) => s.name), answers: [], failures: [] };
    const failures: SequenceFailure[] = [];
    for (const sequence of sequences) {
      const state = new RunState(ours);
      const failure = await runSequence(sequence, state, admin);
      if (failure) failures.push(failure);
      record.answers.push(...state.exchanges.map((exchange) => recordAnswer(exchange, state)));
      process.stderr.write(`${sequence.name}: ${state.exchanges.length} answers\n`);
    }
    record.failures = failures.map((failure) => `${failure.sequence}: ${failure.error.split('\n')[0] ?? ''}`);
    writeFileSync(out, `${JSON.stringify(record, null, 2)}\n`);
    for (const failure of failures) process.stderr.write(`SEQUENCE FAILED: ${failure.sequence}: ${failure.error}\n`);
    process.stdout.write(`${record.answers.length} answers from ${sequences.length} sequences written to ${out}\n`);
    return failures.length === 0 ? 0 : 1;
  } finally {
    await ours.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
