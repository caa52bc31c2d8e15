import pino from 'pino';
import { buildTestApp } from './test/support/test-app.js';
type V = 'plain' | 'log' | 'metrics' | 'both';
async function measure(v: V) {
  const logger = pino({ level: v === 'log' || v === 'both' ? 'info' : 'warn' }, pino.destination({ dest: '/dev/null', sync: false }));
  const settings = { accessLog: v === 'log' || v === 'both', ...(v === 'metrics' || v === 'both' ? { metricsAddress: { host: '127.0.0.1', port: 0 } } : {}) };
  const t = await buildTestApp({ logger, settings });
  const token = await t.loginAsAdmin('client');
  const run = async (n: number) => { for (let i = 0; i < n; i++) await t.app.inject({ method: 'GET', url: '/edge/client/v1/current-identity', headers: { 'zt-session': token } }); };
  await run(3000);
  const cpu = process.cpuUsage();
  await run(15000);
  const used = process.cpuUsage(cpu);
  await t.close();
  return Math.round((used.user + used.system) / 15000 * 10) / 10;
}
const out: Record<V, number[]> = { plain: [], log: [], metrics: [], both: [] };
for (let i = 0; i < 3; i++) for (const v of ['plain', 'log', 'metrics', 'both'] as V[]) out[v].push(await measure(v));
console.log(out);
