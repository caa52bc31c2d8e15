// Replays the corpus against both controllers, pairs the two runs' exchanges by key and classifies each pair:
// identical, explained (every difference covered by the explained file) or unexplained.
import { compareReplies } from './compare.js';
import { explain, type Kind, type LoadedExplanation } from './explained.js';
import { normalisePair } from './normalise.js';
import { sendRequest, type Peer } from './peers.js';
import { RunState, Steps, type Exchange, type Sequence } from './steps.js';

export interface PairResult {
  key: string;
  upstream: Exchange | undefined;
  ours: Exchange | undefined;
  differences: string[];
  /** Per difference, the kind of the entry that explains it (undefined: unexplained). */
  kinds: Array<Kind | undefined>;
  verdict: 'identical' | 'explained' | 'unexplained';
}

export interface SequenceFailure {
  sequence: string;
  peer: string;
  error: string;
}

export interface ReplayResult {
  pairs: PairResult[];
  failures: SequenceFailure[];
}

export async function replay(
  sequences: Sequence[],
  peers: { upstream: Peer; ours: Peer },
  explanations: LoadedExplanation[],
): Promise<ReplayResult> {
  const admins = { upstream: await adminLogin(peers.upstream), ours: await adminLogin(peers.ours) };
  const result: ReplayResult = { pairs: [], failures: [] };
  for (const sequence of sequences) {
    const runs = { upstream: new RunState(peers.upstream), ours: new RunState(peers.ours) };
    for (const side of ['upstream', 'ours'] as const) {
      const failure = await runSequence(sequence, runs[side], admins[side]);
      if (failure) result.failures.push(failure);
    }
    result.pairs.push(...pairUp(runs.upstream.exchanges, runs.ours.exchanges, runs, explanations));
    process.stderr.write(`${sequence.name}: ${runs.ours.exchanges.length} exchanges\n`);
  }
  return result;
}

/** Runs one sequence on one controller as the admin, then deletes what it created; a failure is returned. */
export async function runSequence(
  sequence: Sequence,
  state: RunState,
  admin: AdminLogin,
): Promise<SequenceFailure | undefined> {
  state.tokens.set('admin', admin.token);
  state.name(admin.identityId, 'default-admin');
  let failure: SequenceFailure | undefined;
  try {
    await sequence.run(new Steps(state, sequence.name));
  } catch (error) {
    failure = { sequence: sequence.name, peer: state.peer.name, error: (error as Error).stack ?? String(error) };
  }
  await cleanUp(state, admin.token);
  return failure;
}

function pairUp(
  upstream: Exchange[],
  ours: Exchange[],
  runs: { upstream: RunState; ours: RunState },
  explanations: LoadedExplanation[],
): PairResult[] {
  const oursByKey = new Map(ours.map((exchange) => [exchange.key, exchange]));
  const upstreamKeys = new Set(upstream.map((exchange) => exchange.key));
  const pairs: PairResult[] = upstream.map((u) => {
    const o = oursByKey.get(u.key);
    if (!o)
      return classify(
        u.key,
        u,
        undefined,
        ['sent only to upstream (the sequence took another path on ours)'],
        explanations,
      );
    const [nu, no] = normalisePair({ exchange: u, state: runs.upstream }, { exchange: o, state: runs.ours });
    return classify(u.key, u, o, compareReplies({ upstream: u, ours: o }, nu, no), explanations);
  });
  for (const o of ours.filter((exchange) => !upstreamKeys.has(exchange.key))) {
    pairs.push(
      classify(o.key, undefined, o, ['sent only to ours (the sequence took another path on upstream)'], explanations),
    );
  }
  return pairs;
}

function classify(
  key: string,
  upstream: Exchange | undefined,
  ours: Exchange | undefined,
  differences: string[],
  explanations: LoadedExplanation[],
): PairResult {
  const kinds = explain(key, differences, explanations).map((entry) => entry?.kind);
  const verdict =
    differences.length === 0 ? 'identical' : kinds.every((kind) => kind !== undefined) ? 'explained' : 'unexplained';
  return { key, upstream, ours, differences, kinds, verdict };
}

/** The default admin's session token, and its identity id (named in every run, as sequences meet it in replies). */
export interface AdminLogin {
  token: string;
  identityId: string;
}

export async function adminLogin(peer: Peer): Promise<AdminLogin> {
  const reply = await sendRequest(peer, {
    method: 'POST',
    path: '/edge/management/v1/authenticate?method=password',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: peer.username, password: peer.password }),
  });
  const data = (reply.json as { data?: { token?: unknown; identityId?: unknown } } | undefined)?.data;
  if (reply.status !== 200 || typeof data?.token !== 'string' || typeof data.identityId !== 'string') {
    throw new Error(`${peer.name}: admin login answered ${reply.status} ${reply.text}`);
  }
  return { token: data.token, identityId: data.identityId };
}

/** Deletes what the sequence created, newest first, so the next sequence starts from the same state on both. */
async function cleanUp(state: RunState, token: string): Promise<void> {
  for (const path of [...state.created].reverse()) {
    await sendRequest(state.peer, {
      method: 'DELETE',
      path: `/edge/management/v1${path}`,
      headers: { 'zt-session': token },
    });
  }
}
