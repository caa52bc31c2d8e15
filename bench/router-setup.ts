// What bench:routers sets up before it measures, through the REST API alike on ours and on upstream v1.1.8: the
// routers (created, then enrolled as `ziti router enroll` does: erott, two CSRs) and the API sessions the routers'
// full sync carries (password logins, each on a connection of its own as an SDK's first login is).
import { httpsRequest, loginWithPassword } from './https-client.js';
import { sleep } from './network-steps.js';
import type { EnrolledRouter } from '../test/support/test-router.js';
import { newCsr, newKeyPair } from '../test/support/test-keys.js';

/** The set-up's requests (not measured) may wait long on a machine others load. */
const SETUP_TIMEOUT_MS = 60_000;

/** Creates and enrolls `count` routers (one key pair for all: enrollment signs whatever key a CSR carries). */
export async function enrollRouters(baseUrl: string, token: string, count: number): Promise<EnrolledRouter[]> {
  const management = `${baseUrl}/edge/management/v1`;
  const key = await newKeyPair('ec');
  const routers: EnrolledRouter[] = [];
  for (let start = 0; start < count; start += 25) {
    const batch = Array.from({ length: Math.min(25, count - start) }, (_, i) => start + i);
    routers.push(
      ...(await Promise.all(
        batch.map(async (index) => {
          const name = `bench-router-${index}`;
          const created = await httpsRequest(`${management}/edge-routers`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'zt-session': token },
            body: JSON.stringify({ name }),
            timeoutMs: SETUP_TIMEOUT_MS,
          });
          if (created.status !== 201) throw new Error(`create router: ${created.status}`);
          const id = (created.body as { data: { id: string } }).data.id;
          const detail = await httpsRequest(`${management}/edge-routers/${id}`, {
            headers: { 'zt-session': token },
            timeoutMs: SETUP_TIMEOUT_MS,
          });
          const enrollmentToken = (detail.body as { data: { enrollmentToken: string } }).data.enrollmentToken;
          const csr = await newCsr(key, `C=US, O=OpenZiti, CN=${id}`);
          const enrolled = await httpsRequest(
            `${baseUrl}/edge/client/v1/enroll?method=erott&token=${enrollmentToken}`,
            {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ certCsr: csr, serverCertCsr: csr }),
              timeoutMs: SETUP_TIMEOUT_MS,
            },
          );
          if (enrolled.status !== 200) throw new Error(`enroll router: ${enrolled.status}`);
          return { id, name, certPem: (enrolled.body as { data: { cert: string } }).data.cert, keyPem: key.keyPem };
        }),
      )),
    );
  }
  return routers;
}

/**
 * `count` API sessions by password logins of `username`, `concurrency` at a time; a login refused with 429 (upstream
 * limits the rate of authentications) waits a moment and is tried again. Returns the logins per second.
 */
export async function createApiSessions(
  baseUrl: string,
  username: string,
  password: string,
  count: number,
  concurrency: number,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  const login = async (): Promise<void> => {
    for (;;) {
      const token = await loginWithPassword(`${baseUrl}/edge/client/v1`, username, password);
      if (typeof token === 'string') return;
      if (token.status !== 429) throw new Error(`login: ${token.status} ${JSON.stringify(token.body).slice(0, 200)}`);
      await sleep(200);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        next += 1;
        await login();
      }
    }),
  );
  return Math.round(count / ((performance.now() - started) / 1000));
}
