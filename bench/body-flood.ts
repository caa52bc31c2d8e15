// The body-flood phase: two anonymous clients send maximal bodies back to back while ten others read
// `GET /version`; the readers' p99 is the figure (issue 9: 4 MB bodies once pushed everyone's median to ~600 ms).
// Two floods: bodies over the unauthenticated cap (refused before they are read) and bodies just under it (read,
// parsed and validated in full, then refused for want of a session).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startController } from './controller-process.js';
import { runLoad, type LoadFigures, type LoadSpec } from './load.js';
import type { Goal } from './report.js';
import { ROOT } from './scenario-run.js';
import { say, settings } from './settings.js';

/** The controller's default `http.unauthenticatedBodyLimit`, which the bench controller runs with. */
const UNAUTHENTICATED_CAP = 64 * 1024;
const FLOOD_CONNECTIONS = 2;
const VERSION_P99_MS = 50;
const VERSION_PATH = '/edge/client/v1/version';
/** Anonymous, and validated before the session is checked: the most work a body without a session can cause. */
const FLOOD_PATH = '/edge/client/v1/posture-response-bulk';

export interface FloodRun {
  kind: string;
  bodyBytes: number;
  flood: LoadFigures;
  readers: LoadFigures;
}

export interface BodyFloodResult {
  /** The readers with no flood, for comparison. */
  alone: LoadFigures;
  floods: FloodRun[];
}

/** A JSON array of valid posture responses, as long as fits in `bytes`. */
function postureResponses(bytes: number): string {
  const item = JSON.stringify({
    id: 'posture-check-id',
    typeId: 'OS',
    type: 'Windows',
    version: '10.0.19041',
    build: '19041',
  });
  return `[${Array.from({ length: Math.floor((bytes - 2) / (item.length + 1)) }, () => item).join(',')}]`;
}

const FLOODS = [
  { kind: 'over the cap (4 MiB)', body: () => `[${'1,'.repeat(2 * 1024 * 1024 - 1)}1]` },
  { kind: 'just under the cap', body: () => postureResponses(UNAUTHENTICATED_CAP - 64) },
];

export async function runBodyFloodPhase(home: string, port: number): Promise<BodyFloodResult> {
  const controller = await startController(home, port);
  try {
    const readers: LoadSpec = {
      url: `${controller.baseUrl}${VERSION_PATH}`,
      method: 'GET',
      headers: { accept: 'application/json' },
      connections: settings.connections,
      durationSeconds: settings.durationSeconds,
      warmupSeconds: 0,
    };
    say(`body flood: ${settings.connections} readers of ${VERSION_PATH} alone, ${settings.durationSeconds} s…`);
    const alone = await runLoad({ ...readers, warmupSeconds: settings.warmupSeconds }, ROOT);
    say(`  p50 ${alone.latencyP50Ms} ms, p99 ${alone.latencyP99Ms} ms`);
    const floods: FloodRun[] = [];
    for (const { kind, body } of FLOODS) {
      const text = body();
      const bodyFile = join(home, 'flood-body.json');
      writeFileSync(bodyFile, text);
      const flood: LoadSpec = {
        url: `${controller.baseUrl}${FLOOD_PATH}`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        bodyFile,
        connections: FLOOD_CONNECTIONS,
        durationSeconds: settings.durationSeconds,
        warmupSeconds: 0,
      };
      say(
        `body flood ${kind}: ${FLOOD_CONNECTIONS} clients × ${text.length} bytes, with the readers, ${settings.durationSeconds} s…`,
      );
      const [readerFigures, floodFigures] = await Promise.all([runLoad(readers, ROOT), runLoad(flood, ROOT)]);
      say(
        `  readers p50 ${readerFigures.latencyP50Ms} ms, p99 ${readerFigures.latencyP99Ms} ms; flood ${floodFigures.requestsPerSecond.toFixed(0)} req/s ${JSON.stringify(floodFigures.statusCodes)}`,
      );
      floods.push({ kind, bodyBytes: text.length, flood: floodFigures, readers: readerFigures });
    }
    return { alone, floods };
  } finally {
    await controller.stop();
  }
}

export function evaluateBodyFloodGoals(result: BodyFloodResult): Goal[] {
  return result.floods.map(({ kind, readers, flood }) => {
    const readerFailures = readers.non2xx + readers.errors + readers.timeouts;
    const note =
      `p50 ${readers.latencyP50Ms} ms (alone ${result.alone.latencyP50Ms} ms, p99 ${result.alone.latencyP99Ms} ms); ` +
      `flood ${flood.requestsPerSecond.toFixed(0)} req/s, statuses ${JSON.stringify(flood.statusCodes)}${readerFailures ? `; ${readerFailures} reader failures` : ''}`;
    return {
      goal: `GET /version p99 ≤ ${VERSION_P99_MS} ms while ${FLOOD_CONNECTIONS} clients flood bodies ${kind}`,
      measured: readers.latencyP99Ms,
      verdict: readers.latencyP99Ms <= VERSION_P99_MS && readerFailures === 0 ? 'pass' : 'miss',
      note,
    };
  });
}

export function formatBodyFlood(result: BodyFloodResult): string[] {
  const line = (label: string, readers: LoadFigures) =>
    `  ${label}: readers ${readers.requestsPerSecond.toFixed(0)} req/s, p50 ${readers.latencyP50Ms} ms, p99 ${readers.latencyP99Ms} ms`;
  return [
    `body flood (${FLOOD_CONNECTIONS} anonymous clients on ${FLOOD_PATH}, ${settings.connections} readers of ${VERSION_PATH}):`,
    line('no flood', result.alone),
    ...result.floods.map(({ kind, bodyBytes, readers }) => line(`${kind}, ${bodyBytes} bytes`, readers)),
  ];
}
