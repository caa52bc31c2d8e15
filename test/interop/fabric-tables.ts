// Reading the tables `ziti fabric list links|circuits` prints so two controllers' answers compare: every id is replaced
// by a name both controllers share (routers by their names, a link by its ends, a circuit by its service, the dialling
// session by its identity, a terminator by its service), and the cells that are measurements or times by their shape.
import type { LinkedNetwork } from './linked-network.js';
import { fabricLinks } from './linked-network.js';

/** A table's rows as trimmed cells, the header row included; borders and the paging line dropped. */
export function cliRows(stdout: string): string[][] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('│'))
    .map((line) =>
      line
        .split('│')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

/** Columns whose values are measured (latencies, costs from them) or clock times: compared by shape only. */
const SHAPES: Record<string, [RegExp, string]> = {
  'SRC LATENCY': [/^\d+\.\d+(ns|µs|us|ms|s)$/, '<latency>'],
  'DST LATENCY': [/^\d+\.\d+(ns|µs|us|ms|s)$/, '<latency>'],
  'FULL COST': [/^\d+$/, '<cost>'],
  CREATEDAT: [/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/, '<time>'],
};

interface Named {
  id: string;
  clientId?: string;
  service?: { name: string };
  terminator?: { id: string };
  sourceRouter?: { name: string };
  destRouter?: { name: string };
}

/** Every id the controller's fabric API shows for this network, with the name it gets in a compared table. */
async function names(network: LinkedNetwork): Promise<Map<string, string>> {
  const named = new Map(network.names);
  for (const link of await fabricLinks(network.controller))
    named.set(link.id, `link ${link.sourceRouter.name}→${link.destRouter.name}`);
  const circuits = (await network.controller.fabric('GET', '/circuits')).data as unknown as Named[]; // the list envelope's data
  for (const circuit of circuits) {
    const service = circuit.service?.name ?? '?';
    named.set(circuit.id, `circuit of ${service}`);
    if (circuit.terminator) named.set(circuit.terminator.id, `terminator of ${service}`);
    if (circuit.clientId) named.set(circuit.clientId, await clientName(network, circuit.clientId));
  }
  return named;
}

/** Upstream's circuit clientId is the dialling edge session's id: named by its identity when it is one. */
async function clientName(network: LinkedNetwork, clientId: string): Promise<string> {
  const session = await network.controller.api('GET', `/sessions/${clientId}`);
  if (session.status !== 200)
    return `not a session (${clientId === network.client.id ? 'the client identity' : 'unknown'})`;
  return session.data.identityId === network.client.id
    ? 'a dial session of the client'
    : `a session of ${String(session.data.identityId)}`;
}

/** The table with ids named and measured cells reduced to their shape. */
export async function namedRows(network: LinkedNetwork, stdout: string): Promise<string[][]> {
  const named = await names(network);
  const [header = [], ...rows] = cliRows(stdout);
  const rename = (cell: string) => cell.replace(/[\w.-]+/g, (word) => named.get(word) ?? word);
  return [
    header,
    ...rows.map((row) =>
      row.map((cell, column) => {
        const shape = SHAPES[header[column] ?? ''];
        if (shape) return shape[0].test(cell) ? shape[1] : `unexpected: ${cell}`;
        return named.get(cell) ?? rename(cell);
      }),
    ),
  ];
}
