// Round trips to PostgreSQL per request (issue 26.3): each hot request is made a few times on one instance and the
// statements its process sent to the server while it ran are counted (pg's client query() calls; a text of several
// statements counts once), and the round trips they took: a statement sent while its connection still waits for an
// answer (pg's pipeline mode) rides in that round trip. With the mean time of the round trip that commits (its WAL
// flush). Run: ZITI_TEST_DATABASE_URL=postgres://… node --import tsx bench/round-trips.ts
import pg from 'pg';
import { createScratchSchema } from '../src/store/postgres/scratch-schema.js';
import { createService, createTerminator, createTransitRouter, createUser, login } from '../test/support/factories.js';
import { grantService, openEdgeRouter, requestSession } from '../test/support/sessions.js';
import { buildTestApp, type TestApp } from '../test/support/test-app.js';

const url = process.env.ZITI_TEST_DATABASE_URL;
if (!url) throw new Error('set ZITI_TEST_DATABASE_URL');

let sent = 0;
/** Round trips: statements sent while their connection had none unanswered (a pipelined one rides with those before it). */
let trips = 0;
const inFlight = new WeakMap<object, number>();
// eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the client as `this`
const query = pg.Client.prototype.query;
// Counting every query of every client of the process: the bench's one instance is the only user of pg here.
const show = process.env.ROUND_TRIPS_SHOW === '1';
/** Milliseconds from sending to the answer of each statement that ends a transaction (ROUND_TRIPS_SHOW prints all). */
const commits: number[] = [];
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  sent++;
  const waiting = inFlight.get(this) ?? 0;
  if (waiting === 0) trips++;
  inFlight.set(this, waiting + 1);
  const text = (typeof args[0] === 'string' ? args[0] : JSON.stringify(args[0])).replace(/\s+/g, ' ');
  const started = performance.now();
  const answered = () => {
    inFlight.set(this, (inFlight.get(this) ?? 1) - 1);
    const ms = performance.now() - started;
    if (/COMMIT\W*$/.test(text)) commits.push(ms);
    if (show) console.log(`  > ${ms.toFixed(2).padStart(6)} ms ${text.slice(0, 150)}`);
  };
  // pg's pool sends its own queries with a callback (the change-log look): timed through it.
  const callback = args.at(-1);
  if (typeof callback === 'function')
    args[args.length - 1] = (...results: unknown[]) => {
      answered();
      return Reflect.apply(callback, undefined, results) as unknown;
    };
  const answer = Reflect.apply(query, this, args) as unknown;
  if (answer instanceof Promise)
    void answer.then(answered, () => {
      inFlight.set(this, (inFlight.get(this) ?? 1) - 1);
    });
  return answer;
} as typeof query;

const client = '/edge/client/v1';
const management = '/edge/management/v1';

async function perRequest(name: string, request: (i: number) => Promise<{ status: number }>, runs = 5): Promise<void> {
  const counts: string[] = [];
  commits.length = 0;
  for (let i = 0; i < runs; i++) {
    const [before, tripsBefore] = [sent, trips];
    const { status } = await request(i);
    if (status >= 300) throw new Error(`${name}: ${status}`);
    counts.push(`${sent - before}/${trips - tripsBefore}`);
  }
  const commit = commits.length
    ? `  (commit round trip ${(commits.reduce((a, b) => a + b, 0) / commits.length).toFixed(2)} ms mean)`
    : '';
  console.log(`${name.padEnd(58)} ${counts.join(' ')}${commit}`);
}

const scratch = await createScratchSchema(url, 'round_trips');
let app: TestApp | undefined;
try {
  app = await buildTestApp({ settings: { databaseUrl: scratch.url } });
  const t = app;
  const admin = await t.loginAsAdmin();
  await openEdgeRouter(t, admin);
  const user = await createUser(t, admin);
  const { serviceId } = await grantService(t, admin, user.id, ['Dial']);
  const token = await login(t, user.username, user.password);
  const get = (path: string, as = token) => t.call({ method: 'GET', url: path, token: as });
  console.log('statements/round trips per request, five requests in a row (the first may fill caches)');
  await perRequest('GET current-identity', () => get(`${client}/current-identity`));
  await perRequest('GET services (client)', () => get(`${client}/services`));
  await perRequest('GET current-api-session/service-updates', () =>
    get(`${client}/current-api-session/service-updates`),
  );
  await perRequest('POST sessions (Dial, the API session reuses its session)', () =>
    requestSession(t, token, serviceId, 'Dial'),
  );
  // As the stores bench sends them: each create by an API session that holds none for the service yet.
  const tokens = await Promise.all([0, 1, 2, 3, 4].map(() => login(t, user.username, user.password)));
  await perRequest('POST sessions (Dial, a new session each)', (i) =>
    requestSession(t, tokens[i] ?? token, serviceId, 'Dial'),
  );
  await perRequest('GET identities?filter=name = <a different name each>', (i) =>
    get(`${management}/identities?filter=${encodeURIComponent(`name = "n${i}"`)}`, admin),
  );
  await perRequest('GET identities (kept answer)', () => get(`${management}/identities`, admin));
  await perRequest('POST authenticate (password)', () =>
    t.call({
      method: 'POST',
      url: `${client}/authenticate?method=password`,
      payload: { username: user.username, password: user.password },
    }),
  );
  await perRequest('POST services (admin create)', (i) =>
    createService(t, admin, { name: `rt-${i}` }).then(() => ({ status: 201 })),
  );
  const router = await createTransitRouter(t, admin);
  await perRequest('POST terminators (admin create)', () =>
    createTerminator(t, admin, serviceId, router).then(() => ({ status: 201 })),
  );
} finally {
  await app?.close();
  await scratch.drop();
}
