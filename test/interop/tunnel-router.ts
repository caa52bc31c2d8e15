// A tunneler-enabled v1.1.8 router configured as users configure one: `ziti create config router edge` writes its
// config (mode host by default) and only addresses differ — the controller's, loopback listeners and free ports, given
// through the generator's own environment variables and its `0.0.0.0` binds moved to 127.0.0.1 — plus, in proxy mode,
// the `services` the proxy listens for (the generator writes none).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../bench/server-process.js';
import { zitiEnv } from '../../scripts/upstream.js';
import { create, Program, runZiti, until, type NetworkController } from './network.js';
import { spawn } from 'node:child_process';
import type { Namespace } from './netns.js';

export interface TunnelRouterOptions {
  name: string;
  mode: 'host' | 'proxy' | 'tproxy';
  /** proxy mode: `<service>:<port>` entries. */
  proxyServices?: string[];
  /**
   * Where it listens and is reached (default loopback): an IP, also given to the generator as the IP SAN of its
   * certificates (ZITI_ROUTER_IP_OVERRIDE), as SDKs reaching the router by that address need.
   */
  address?: string;
  /** Runs inside this network namespace (`ip netns exec`); enrollment still runs on the host. */
  netns?: Namespace;
}

function generate(binary: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { env: { ...zitiEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`${args.join(' ')}: ${errors}`))));
  });
}

/** Creates the router (isTunnelerEnabled), writes its config with the generator, enrolls it; `run()` starts it. */
export async function tunnelRouter(
  binary: string,
  controller: NetworkController,
  ctrlEndpoint: string,
  work: string,
  options: TunnelRouterOptions,
) {
  const { name, mode, address = '127.0.0.1' } = options;
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const routerId = await create(controller, '/edge-routers', { name, isTunnelerEnabled: true, roleAttributes: [] });
  const details = await controller.api('GET', `/edge-routers/${routerId}`);
  writeFileSync(join(dir, 'router.jwt'), String(details.data.enrollmentJwt));
  const [ctrlHost, ctrlPort] = ctrlEndpoint.replace(/^tls:/, '').split(':');
  const env = {
    ZITI_HOME: dir,
    ZITI_CTRL_ADVERTISED_ADDRESS: ctrlHost,
    ZITI_CTRL_ADVERTISED_PORT: ctrlPort,
    ZITI_ROUTER_ADVERTISED_ADDRESS: address,
    ZITI_ROUTER_PORT: String(await freePort()),
    ZITI_ROUTER_LISTENER_BIND_PORT: String(await freePort()),
    ...(address === '127.0.0.1' ? {} : { ZITI_ROUTER_IP_OVERRIDE: address }),
  };
  let config = await generate(
    binary,
    ['create', 'config', 'router', 'edge', '--routerName', name, '--tunnelerMode', mode],
    env,
  );
  config = config.replaceAll('tls:0.0.0.0:', `tls:${address}:`);
  if (options.proxyServices) {
    const services = options.proxyServices.map((entry) => JSON.stringify(entry)).join(', ');
    config = config.replace(/mode: proxy.*\n/, (line) => `${line}      services: [${services}]\n`);
  }
  const file = join(dir, 'router.yml');
  writeFileSync(file, config);
  const enroll = await runZiti(binary, ['router', 'enroll', file, '--jwt', join(dir, 'router.jwt')], dir);
  if (enroll.code !== 0) throw new Error(`router enroll of ${name} failed: ${enroll.output}`);
  const connected = async () => (await controller.fabric('GET', `/routers/${routerId}`)).data.connected === true;
  return {
    routerId,
    name,
    config: () => readFileSync(file, 'utf8'),
    connected,
    /** `ziti router run` on the generated config. */
    run: () => {
      const { command, args } = options.netns?.exec(binary, ['router', 'run', file]) ?? {
        command: binary,
        args: ['router', 'run', file],
      };
      return new Program(command, args, dir);
    },
  };
}

/** Waits for `program` to connect; `what` names it in the error. */
export async function untilConnected(router: { connected: () => Promise<boolean> }, program: Program, what: string) {
  await until(() => `${what} connected\n${program.log.slice(-2000)}`, router.connected, 60_000);
}
