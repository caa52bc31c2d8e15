// `npm run test:upstream`: differential conformance. Starts upstream v1.1.8 and our controller, replays the corpus
// against both, compares every exchange after normalisation and prints
// `N exchanges, M identical, K explained, U unexplained`. Exits non-zero when U > 0, a sequence failed, an operation
// of either API went unexercised or an entry of the explained file matched nothing.
// `npm run test:upstream -- <word>…` replays only the sequences whose names contain one of the words.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpus } from './corpus/index.js';
import { loadExplanations } from './explained.js';
import { startOurPeer, startUpstreamPeer, type Peer } from './peers.js';
import { replay } from './replay.js';
import { formatReport, uncoveredOperations } from './report.js';

const HERE = dirname(fileURLToPath(import.meta.url));

async function main(): Promise<number> {
  const words = process.argv.slice(2);
  const sequences = words.length === 0 ? corpus : corpus.filter((s) => words.some((word) => s.name.includes(word)));
  if (sequences.length === 0) throw new Error(`no sequence matches ${words.join(', ')}`);
  const explanations = loadExplanations(join(HERE, 'explained-differences.yaml'));
  const starts = await Promise.allSettled([startUpstreamPeer(), startOurPeer()]);
  const started = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
  try {
    const [upstream, ours] = starts.map((start) => {
      if (start.status === 'rejected') throw start.reason;
      return start.value;
    }) as [Peer, Peer];
    process.stderr.write(`upstream ${upstream.baseUrl}, ours ${ours.baseUrl}; ${sequences.length} sequences\n`);
    const result = await replay(sequences, { upstream, ours }, explanations);
    const uncovered = words.length === 0 ? uncoveredOperations(result.pairs) : [];
    const unused =
      words.length === 0 ? explanations.filter((entry) => entry.used === 0 && entry.occasional !== true) : [];
    const report = formatReport(result, uncovered, unused);
    const file = join(HERE, 'results', 'latest.json');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${report.text}\nall exchanges: ${file}\n`);
    return report.passed ? 0 : 1;
  } finally {
    await Promise.all(started.map((peer) => peer.stop()));
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
