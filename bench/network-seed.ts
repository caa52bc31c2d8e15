// BENCH_NETWORK_SEED=store (ours only): the network bench's identities inserted through the store's query modules
// (bench/seed-identities.ts, the rows the API would write, no policy naming them) with the controller stopped, then
// the controller started again on the same home and port. Growing through the API on PostgreSQL runs at ~185
// identities/s (each create a strict write), which does not reach 100k in the step's time; the timed operations
// still go through the API. Upstream always grows through its API.
import https from 'node:https';
import { seedIdentities } from './seed-identities.js';
import type { Api } from './network-steps.js';
import { load1 } from './network-steps.js';
import { startController } from './controller-process.js';
import type { ServerProcess } from './server-process.js';
import { say } from './settings.js';

export const seedMode = process.env.BENCH_NETWORK_SEED === 'store' ? 'store' : 'api';

/** Stops `server`, seeds identities [from, to), starts it again; the new process and how the growth went. */
export async function seedThroughStore(
  server: ServerProcess,
  home: string,
  port: number,
  api: Api,
  from: number,
  to: number,
): Promise<{ server: ServerProcess; perSecond: number; seconds: number }> {
  await server.stop();
  const ms = await seedIdentities(home, from, to, (done) => say(`  identities seeded through the store: ${done}`));
  const restarted = await startController(home, port);
  // The pooled connections went with the old process.
  api.agent.destroy();
  api.agent = new https.Agent({ keepAlive: true });
  const perSecond = Math.round(((to - from) * 1000) / Math.max(1, ms));
  say(`  identities ${from}..${to} seeded through the store: ${perSecond}/s (load ${load1()})`);
  return { server: restarted, perSecond, seconds: Number((ms / 1000).toFixed(1)) };
}
