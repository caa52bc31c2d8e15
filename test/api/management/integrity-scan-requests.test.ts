// One integrity scan at a time, as clients see it without any help from the test: upstream's check runs in a
// goroutine after the 202 and counts as running until it ends (routes/database_router.go), so a second request right
// after the first is refused with 429 while it runs. A small database's scan takes milliseconds here; it must still
// be running when the next request of a client that asks straight away arrives.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { IntegrityStatus } from '../../../src/integrity/integrity-checks.js';
import { assertError } from '../../support/conformance.js';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { buildTlsTestApp, type TlsTestApp } from '../../support/tls-client.js';
import { MANAGEMENT as api } from '../../support/api-paths.js';

describe('integrity scans requested back to back', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  const results = async () => {
    const result = await t.call({ method: 'GET', url: `${api}/database/data-integrity-results`, token });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: IntegrityStatus }).data;
  };

  it('refuses a scan of either kind asked for right after one started, and shows the first running', async () => {
    assert.equal((await t.call({ method: 'POST', url: `${api}/database/check-data-integrity`, token })).status, 202);
    assertError(
      await t.call({ method: 'POST', url: `${api}/database/check-data-integrity`, token }),
      429,
      'RATE_LIMITED',
    );
    assertError(
      await t.call({ method: 'POST', url: `${api}/database/fix-data-integrity`, token }),
      429,
      'RATE_LIMITED',
    );
    const running = await results();
    assert.deepEqual([running.inProgress, running.fixingErrors, running.endTime], [true, false, null]);
    await t.deps.integrityChecks.settled();
    const done = await results();
    assert.equal(done.inProgress, false);
    assert.equal(typeof done.endTime, 'string');
    assert.equal(
      (await t.call({ method: 'POST', url: `${api}/database/fix-data-integrity`, token })).status,
      202,
      'a new scan once it ended',
    );
    await t.deps.integrityChecks.settled();
  });
});

describe('integrity scans over a kept-alive HTTPS connection, as the ziti CLI asks', () => {
  let t: TlsTestApp;
  let token: string;
  before(async () => {
    t = await buildTlsTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  const headers = () => ({ 'zt-session': token, accept: 'application/json', 'content-type': 'application/json' });
  const post = (kind: 'check' | 'fix') =>
    t.https({ method: 'POST', path: `${api}/database/${kind}-data-integrity`, headers: headers() });
  const status = async () =>
    (
      (await t.https({ path: `${api}/database/data-integrity-results`, headers: headers() })).json as {
        data: IntegrityStatus;
      }
    ).data;

  it('answers 429 to a second scan asked for as soon as the first was accepted, then polls it to its end', async () => {
    for (const [first, second] of [
      ['check', 'check'],
      ['fix', 'check'],
      ['check', 'fix'],
    ] as const) {
      // `ziti edge db check-integrity-status`, until it reads "In Progress: false".
      const untilEnded = async () => {
        let polls = 0;
        while ((await status()).inProgress) {
          assert.ok(++polls < 500, 'the scan ends');
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        assert.equal(typeof (await status()).endTime, 'string');
      };
      // On an almost empty database a scan may end before the next request arrives on a loaded machine, and then a
      // second scan is rightly accepted: asked again, up to five times, one of them must meet the first still running.
      let refused = { status: 0, text: '', json: undefined as unknown };
      for (let attempt = 0; attempt < 5 && refused.status !== 429; attempt++) {
        assert.equal((await post(first)).status, 202);
        refused = await post(second);
        await untilEnded();
      }
      assert.equal(refused.status, 429, `${second} right after ${first}: ${refused.text}`);
      assert.equal((refused.json as { error: { code: string } }).error.code, 'RATE_LIMITED');
    }
  });
});
