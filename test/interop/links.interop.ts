// `npm run test:interop:links`: two upstream v1.1.8 routers linked under our controller (issue 24 item 5), the same
// topology beside upstream's v1.1.8 controller in the same run. Router A has the edge listener the dialling identity
// may use and a link listener; router B the edge listener the hosting identity may use and no link listener, so B
// dials the link to A. `ziti demo echo-server` hosts an echo service on B, `ziti demo zcat` dials it through A: a line
// and 1 MiB come back across the link; with a circuit held open, `ziti fabric list links|circuits` (the real CLI,
// logged in to each controller) show the same rows once ids are named; B killed (SIGKILL) and restarted: the link comes
// back and a new dial works. Then a transit router T (fabric only, no edge listener) between A and B: both dial T, a
// circuit takes two hops A → T → B. Figures go to test/interop/results/links*.json. Skips without the `ziti` binary.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findZiti, Program, terminators, until, zcat } from './network.js';
import {
  connectedLinks,
  echoWhole,
  fabricLinks,
  holdCircuit,
  type LinkedNetwork,
  type Topology,
} from './linked-network.js';
import { namedRows } from './fabric-tables.js';
import { sideBySide } from './side-by-side.js';

const binary = findZiti();
const skip = binary === undefined ? 'no ziti v1.1.8 binary (set ZITI_UPSTREAM_BIN)' : false;

const TOPOLOGY: Topology = {
  routers: [{ name: 'router-a', linkGroups: ['default'] }, { name: 'router-b' }],
  clientRouter: 'router-a',
  services: { echo: 'router-b' },
  links: 1,
};

describe('two v1.1.8 routers linked under our controller, beside upstream', { skip }, () => {
  const ziti = binary ?? '';
  const { both, dial: dialService, diagnostics, figures } = sideBySide(ziti, TOPOLOGY, 'links');
  const terminatorsOf = (network: LinkedNetwork) =>
    terminators(network.controller, network.hosts.get('echo')?.serviceId ?? '');
  const dial = (network: LinkedNetwork, input: Buffer) => dialService(network, 'echo', input);

  it('B dials the link to A: both controllers list one Connected link B → A with the same fields', async () => {
    const [ours, upstream] = await both(async (network) => {
      const [link] = await fabricLinks(network.controller);
      assert.ok(link, `no link on ${network.kind}`);
      assert.deepEqual(
        [link.sourceRouter.name, link.destRouter.name, link.state, link.down, link.protocol],
        ['router-b', 'router-a', 'Connected', false, 'tls'],
      );
      return link;
    });
    assert.deepEqual(Object.keys(ours).sort(), Object.keys(upstream).sort());
    assert.equal(ours.staticCost, upstream.staticCost);
    assert.equal(ours.iteration, upstream.iteration);
  });

  it('the terminator is on B and zcat dials through A: a line and 1 MiB come back across the link', async () => {
    await both(async (network) => {
      const [terminator] = await terminatorsOf(network);
      assert.equal(network.names.get(String(terminator?.routerId)), 'router-b');
      const line = await dial(network, Buffer.from('across the link\n'));
      assert.equal(line.output.toString(), 'across the link\n');
      const payload = randomBytes(1024 * 1024);
      const mib = await echoWhole(ziti, network.client.file, 'echo', payload, network.work);
      Object.assign(figures[network.kind], { lineMs: Math.round(line.ms), mibMs: Math.round(mib.ms) });
      assert.ok(
        mib.code === 0 && mib.output.equals(payload),
        `the echoed MiB differs on ${network.kind} (${mib.output.length} bytes, exit ${mib.code})\n${diagnostics(network)}`,
      );
    });
  });

  it('with a circuit open, `ziti fabric list links` and `list circuits` show the same rows on both (ids named)', async () => {
    const held = await both((network) => holdCircuit(ziti, network, 'echo'));
    for (const entry of held)
      assert.deepEqual([entry.routers, entry.circuit.path.links.length], [['router-a', 'router-b'], 1]);
    try {
      const [ours, upstream] = await both(async (network) => {
        const links = await network.cli.ok(['fabric', 'list', 'links']);
        const listed = await network.cli.ok(['fabric', 'list', 'circuits']);
        return {
          links: await namedRows(network, links.stdout),
          circuits: await namedRows(network, listed.stdout),
          raw: `${links.stdout}${listed.stdout}`,
        };
      });
      figures.ours.cli = ours.raw;
      figures.upstream.cli = upstream.raw;
      assert.deepEqual(ours.links, upstream.links, `list links\nours:\n${ours.raw}\nupstream:\n${upstream.raw}`);
      assert.deepEqual(
        ours.circuits,
        upstream.circuits,
        `list circuits\nours:\n${ours.raw}\nupstream:\n${upstream.raw}`,
      );
    } finally {
      await Promise.all(held.map((entry) => entry.program.stop()));
    }
  });

  it('B killed (SIGKILL) and restarted: the link comes back and a new dial crosses it', async () => {
    await both(async (network) => {
      const routerB = network.routers.get('router-b');
      assert.ok(routerB);
      const [before] = await fabricLinks(network.controller);
      await routerB.program.kill();
      const killed = performance.now();
      await until(`router-b disconnected on ${network.kind}`, async () => !(await routerB.connected()), 60_000, 100);
      routerB.program = new Program(
        ziti,
        ['router', 'run', join(network.work, 'router-b', 'router.yml')],
        join(network.work, 'router-b'),
      );
      const [link] = await connectedLinks(network, 1);
      assert.ok(link);
      assert.deepEqual([link.sourceRouter.name, link.destRouter.name], ['router-b', 'router-a']);
      figures[network.kind].killToLinkMs = Math.round(performance.now() - killed);
      figures[network.kind].linkAfterRestart = {
        sameId: link.id === before?.id,
        iterationBefore: before?.iteration,
        iterationAfter: link.iteration,
      };
      const line = Buffer.from('after router-b restart\n');
      await until(
        () => `a dial after the restart on ${network.kind}\n${diagnostics(network)}`,
        async () => {
          const reply = await zcat(ziti, network.client.file, 'echo', line, network.work, 20_000);
          return reply.code === 0 && reply.output.equals(line);
        },
        90_000,
        500,
      );
      figures[network.kind].killToDialMs = Math.round(performance.now() - killed);
    });
  });

  it('after the restart `ziti fabric list links` shows the same on both (the old link gone, the new one Connected)', async () => {
    const [ours, upstream] = await both(async (network) =>
      namedRows(network, (await network.cli.ok(['fabric', 'list', 'links'])).stdout),
    );
    assert.deepEqual(ours, upstream);
    assert.equal(ours.length, 2, JSON.stringify(ours));
  });
});

const TRANSIT: Topology = {
  routers: [{ name: 'router-t', edge: false, linkGroups: ['default'] }, { name: 'router-a' }, { name: 'router-b' }],
  clientRouter: 'router-a',
  services: { echo: 'router-b' },
  links: 2,
};

describe(
  'a transit v1.1.8 router (no edge listener) between two edge routers under ours, beside upstream',
  { skip },
  () => {
    const ziti = binary ?? '';
    const { both, dial, figures } = sideBySide(ziti, TRANSIT, 'links-transit');

    it('A and B each dial T: both controllers list the same two links', async () => {
      // Sorted here: upstream refuses `sort by` on links (400), and each controller's order follows its own ids.
      const sorted = ([header = [], ...rows]: string[][]) => [
        header,
        ...rows.sort((a, b) => a.join().localeCompare(b.join())),
      ];
      const [ours, upstream] = await both(async (network) =>
        sorted(await namedRows(network, (await network.cli.ok(['fabric', 'list', 'links'])).stdout)),
      );
      assert.deepEqual(ours, upstream);
      assert.deepEqual(
        ours.slice(1).map((row) => [row[1], row[2], row[6]]),
        [
          ['router-a', 'router-t', 'Connected'],
          ['router-b', 'router-t', 'Connected'],
        ],
      );
    });

    it('a circuit takes two hops A → T → B: a line and 1 MiB come back, `ziti fabric list circuits` alike', async () => {
      const held = await both((network) => holdCircuit(ziti, network, 'echo'));
      try {
        for (const entry of held)
          assert.deepEqual([entry.routers, entry.circuit.path.links.length], [['router-a', 'router-t', 'router-b'], 2]);
        const [ours, upstream] = await both(async (network) =>
          namedRows(network, (await network.cli.ok(['fabric', 'list', 'circuits'])).stdout),
        );
        assert.deepEqual(ours, upstream);
      } finally {
        await Promise.all(held.map((entry) => entry.program.stop()));
      }
      await both(async (network) => {
        const line = await dial(network, 'echo', Buffer.from('two hops\n'));
        assert.equal(line.output.toString(), 'two hops\n');
        const payload = randomBytes(1024 * 1024);
        const mib = await echoWhole(ziti, network.client.file, 'echo', payload, network.work);
        Object.assign(figures[network.kind], { lineMs: Math.round(line.ms), mibMs: Math.round(mib.ms) });
        assert.ok(
          mib.code === 0 && mib.output.equals(payload),
          `the echoed MiB differs on ${network.kind} (${mib.output.length} bytes, exit ${mib.code})`,
        );
      });
    });
  },
);
