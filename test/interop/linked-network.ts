// A network of several upstream v1.1.8 routers linked to each other, driven through the management API so the same code
// builds it on our controller and on upstream's (issue 24): routers with or without edge and link listeners (link
// groups decide who dials whom), one dialling identity allowed only on its router, and per echo service a hosting
// identity allowed only on the router named for it (edge-router policies), `ziti demo echo-server` hosting it.
// Used by `npm run test:interop:links` and `npm run bench:paths`.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { zitiEnv } from '../../scripts/upstream.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../upstream/peers.js';
import { zitiCli, type ZitiCli } from './ziti-cli.js';
import {
  create,
  echoService,
  enrolledIdentity,
  Program,
  startController,
  startEchoServer,
  startRouter,
  until,
  type ControllerKind,
  type NetworkController,
  type Router,
  type RouterOptions,
} from './network.js';

export interface Topology {
  /** Started in this order; a router's links appear once both it and the router it dials run. */
  routers: Array<RouterOptions & { name: string }>;
  /** The router the dialling identity (`client`) may use. */
  clientRouter: string;
  /** Echo service name → the router its hosting identity may use. */
  services: Record<string, string>;
  /** How many links the network settles on (each dialer–listener pair whose groups meet). */
  links: number;
}

export interface LinkedNetwork {
  kind: ControllerKind;
  controller: NetworkController;
  routers: Map<string, Router>;
  client: { id: string; file: string };
  hosts: Map<string, { id: string; file: string; serviceId: string; echo: { program: Program; terminatorId: string } }>;
  /** Upstream's `ziti` CLI logged in to this controller (its own config folder). */
  cli: ZitiCli;
  work: string;
  /** Router id → name, for reading what the fabric API and the CLI show without either controller's ids. */
  names: Map<string, string>;
  stop(): Promise<void>;
}

export interface FabricLink {
  id: string;
  state: string;
  down: boolean;
  cost: number;
  staticCost: number;
  iteration: number;
  protocol: string;
  sourceRouter: { id: string; name: string };
  destRouter: { id: string; name: string };
}

/** The links the fabric API lists. */
export async function fabricLinks(controller: NetworkController): Promise<FabricLink[]> {
  const reply = await controller.fabric('GET', '/links');
  if (reply.status !== 200) throw new Error(`GET /fabric/v1/links answered ${reply.status}`);
  return reply.data as unknown as FabricLink[]; // the list envelope's data: an array of linkDetail
}

/** Resolves once `count` links are Connected (and not down), returning them. */
export async function connectedLinks(network: LinkedNetwork, count: number, timeoutMs = 60_000): Promise<FabricLink[]> {
  let seen: FabricLink[] = [];
  return until(
    () => `${count} connected links on ${network.kind}; seen ${JSON.stringify(seen)}`,
    async () => {
      seen = (await fabricLinks(network.controller)).filter((link) => link.state === 'Connected' && !link.down);
      return seen.length >= count ? seen : undefined;
    },
    timeoutMs,
    200,
  );
}

export interface FabricCircuit {
  id: string;
  service: { name: string };
  path: { nodes: Array<{ name: string }>; links: Array<{ id: string }> };
}

/**
 * One `ziti demo zcat` dial of `service` held open (its line echoed, stdin left open) and its circuit as the fabric
 * API shows it; stop the program to end it.
 */
export async function holdCircuit(ziti: string, network: LinkedNetwork, service: string) {
  const line = `held ${service}`;
  const program = new Program(ziti, ['demo', 'zcat', '-i', network.client.file, `ziti:${service}`], network.work);
  program.child.stdin?.write(`${line}\n`);
  try {
    await until(
      () => `the held circuit's echo on ${network.kind}\n${program.log}`,
      () => Promise.resolve(program.log.includes(line)),
      30_000,
    );
    const circuits = (await network.controller.fabric('GET', '/circuits')).data as unknown as FabricCircuit[]; // the list envelope's data
    const circuit = circuits.find((entry) => entry.service.name === service);
    if (!circuit) throw new Error(`no circuit of ${service} on ${network.kind}: ${JSON.stringify(circuits)}`);
    return { program, circuit, routers: circuit.path.nodes.map((node) => node.name) };
  } catch (error) {
    await program.stop();
    throw error;
  }
}

export async function startLinkedNetwork(
  ziti: string,
  kind: ControllerKind,
  work: string,
  topology: Topology,
): Promise<LinkedNetwork> {
  const { controller, ctrlEndpoint } = await startController(kind, work);
  const routers = new Map<string, Router>();
  const hosts: LinkedNetwork['hosts'] = new Map();
  const stop = async () => {
    await Promise.all([...hosts.values()].map((host) => host.echo.program.stop()));
    await Promise.all([...routers.values()].map((router) => router.program.stop()));
    await controller.stop();
  };
  try {
    for (const options of topology.routers)
      routers.set(options.name, await startRouter(ziti, controller, ctrlEndpoint, work, options));
    const routerId = (name: string) => {
      const router = routers.get(name);
      if (!router) throw new Error(`the topology names no router ${name}`);
      return router.routerId;
    };
    await create(controller, '/service-edge-router-policies', {
      name: 'all-services',
      semantic: 'AnyOf',
      serviceRoles: ['#all'],
      edgeRouterRoles: ['#all'],
    });
    const client = await enrolledIdentity(ziti, controller, 'client', work);
    await create(controller, '/edge-router-policies', {
      name: 'client-router',
      semantic: 'AnyOf',
      identityRoles: [`@${client.id}`],
      edgeRouterRoles: [`@${routerId(topology.clientRouter)}`],
    });
    for (const [service, router] of Object.entries(topology.services)) {
      const host = await enrolledIdentity(ziti, controller, `${service}-host`, work);
      await create(controller, '/edge-router-policies', {
        name: `${service}-host-router`,
        semantic: 'AnyOf',
        identityRoles: [`@${host.id}`],
        edgeRouterRoles: [`@${routerId(router)}`],
      });
      const serviceId = await echoService(controller, service, host.id, client.id, true);
      const echo = await startEchoServer(ziti, controller, host.file, service, serviceId, work);
      hosts.set(service, { ...host, serviceId, echo });
    }
    const cli = zitiCli(join(work, 'cli'));
    await cli.ok([
      'edge',
      'login',
      controller.baseUrl,
      '-u',
      ADMIN_USERNAME,
      '-p',
      ADMIN_PASSWORD,
      '--ca',
      controller.caFile,
    ]);
    const names = new Map([...routers.values()].map((router) => [router.routerId, router.name]));
    const network: LinkedNetwork = { kind, controller, routers, client, hosts, cli, work, names, stop };
    await connectedLinks(network, topology.links);
    return network;
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * One `ziti demo zcat` dial that writes `input` and keeps its side open until as many bytes came back (then closes
 * it): the echo is read whole without relying on a half-close travelling behind the data, which over a link between
 * v1.1.8 routers cuts the echo short (seen under both controllers: zcat exits 0 ~30 s later with part of a MiB).
 */
export function echoWhole(
  binary: string,
  identityFile: string,
  service: string,
  input: Buffer,
  cwd: string,
  timeoutMs = 60_000,
): Promise<{ code: number | null; output: Buffer; log: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(binary, ['demo', 'zcat', '-i', identityFile, `ziti:${service}`], {
      cwd,
      env: zitiEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let received = 0;
    let log = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received >= input.length) child.stdin.end();
    });
    child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: Buffer.concat(chunks), log, ms: performance.now() - started });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.write(input);
  });
}
