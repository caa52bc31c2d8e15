// One topology built on our controller and on upstream's v1.1.8 at once, for interop tests that compare them: registers
// the suite's before/after hooks (start both, stop both, write the figures to test/interop/results/<label>.json).
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { readLog, tempDir, zcat, type ControllerKind } from './network.js';
import { startLinkedNetwork, type LinkedNetwork, type Topology } from './linked-network.js';

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), 'results');

export function sideBySide(ziti: string, topology: Topology, label: string) {
  const sides = new Map<ControllerKind, LinkedNetwork>();
  const works: string[] = [];
  const figures: Record<ControllerKind, Record<string, unknown>> = { ours: {}, upstream: {} };
  const side = (kind: ControllerKind) => {
    const network = sides.get(kind);
    if (!network) throw new Error(`the ${kind} network did not start`);
    return network;
  };

  before(async () => {
    const started = await Promise.allSettled(
      (['ours', 'upstream'] as const).map(async (kind) => {
        const work = tempDir(`ziti-${label}-${kind}-`);
        works.push(work);
        const began = performance.now();
        sides.set(kind, await startLinkedNetwork(ziti, kind, work, topology));
        figures[kind].setupToLinksMs = Math.round(performance.now() - began);
      }),
    );
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  });

  after(async () => {
    await Promise.all([...sides.values()].map((network) => network.stop()));
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, `${label}.json`), `${JSON.stringify(figures, null, 2)}\n`);
    process.stdout.write(`${label} figures: ${JSON.stringify(figures)}\n`);
    if (process.env.ZITI_INTEROP_KEEP) process.stdout.write(`kept: ${works.join(' ')}\n`);
    else for (const work of works) rmSync(work, { recursive: true, force: true });
  });

  const diagnostics = (network: LinkedNetwork) =>
    [
      `--- ${network.kind} controller ---\n${readLog(network.controller.logFile).slice(-3000)}`,
      ...[...network.routers.values()].map((router) => `--- ${router.name} ---\n${router.program.log.slice(-2000)}`),
      ...[...network.hosts.values()].map((host) => `--- echo ---\n${host.echo.program.log.slice(-1500)}`),
    ].join('\n');

  return {
    figures,
    diagnostics,
    /** Runs `check` on both sides at once (ours first in the answer). */
    both: <T>(check: (network: LinkedNetwork) => Promise<T>) =>
      Promise.all([check(side('ours')), check(side('upstream'))]),
    /** One zcat dial of `service` that must exit 0. */
    dial: async (network: LinkedNetwork, service: string, input: Buffer) => {
      const reply = await zcat(ziti, network.client.file, service, input, network.work);
      assert.equal(
        reply.code,
        0,
        `zcat on ${network.kind} exited ${reply.code}: ${reply.log.slice(-1500)}\n${diagnostics(network)}`,
      );
      return reply;
    },
  };
}
