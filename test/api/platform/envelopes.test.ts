// Lists and details write their envelope as text (envelopeWriter) rather than through one JSON.stringify of the
// whole body: for real entities with hostile text in every free field, the bytes sent must be exactly what
// serializeJson writes for the same envelope.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serializeJson, type Envelope } from '../../../src/http/envelope.js';
import { hostileStrings } from '../../../src/http/envelope.test-values.js';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { createEntity } from '../../support/factories.js';
import { MANAGEMENT } from '../../support/api-paths.js';

const INT64_MAX = '9223372036854775807';

/** What serializeJson writes for the envelope the reply carries (`limit none` is the one value JSON.parse cannot keep). */
function reserialised(text: string): string {
  const body = JSON.parse(text.replace(`"limit":${INT64_MAX}`, '"limit":"none"')) as Envelope;
  return serializeJson(body);
}

describe('list and detail envelopes', () => {
  let t: TestApp;
  let token: string;
  // PostgreSQL refuses NUL in text (a 400 there), so every other control character stands for it.
  const strings = hostileStrings
    .map((text) => text.replaceAll('\u0000', ''))
    .filter((text) => text.length > 0 && text.length < 1_000);

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
    const configTypeId = await createEntity(t, token, 'config-types', { name: 'envelope-type', schema: {} });
    for (const [index, text] of strings.entries()) {
      const tags = { text, [text]: index, f: 1.5, none: null, yes: true };
      await createEntity(t, token, 'identities', {
        name: `envelope ${index} ${text}`,
        type: 'User',
        isAdmin: false,
        roleAttributes: [text, 'envelope'],
        tags,
        appData: { text, deep: { [text]: [text] } },
        externalId: `envelope-${index} ${text}`,
        enrollment: index % 2 === 0 ? { ott: true } : { updb: `envelope-user-${index}` },
      });
      const configId = await createEntity(t, token, 'configs', {
        name: `envelope config ${index}`,
        configTypeId,
        data: { text, n: index / 3, big: 1e21 },
        tags,
      });
      await createEntity(t, token, 'services', {
        name: `envelope service ${index} ${text}`,
        roleAttributes: [text],
        configs: [configId],
        tags,
        encryptionRequired: true,
      });
    }
  });
  after(() => t.close());

  for (const collection of ['identities', 'configs', 'services']) {
    it(`sends ${collection} pages and details byte for byte as serializeJson writes them`, async () => {
      for (const query of [
        '',
        '?limit=3&offset=2',
        '?limit=-1',
        `?filter=${encodeURIComponent('name contains "envelope"')}&limit=500`,
        '?limit=10&offset=1000',
      ]) {
        const page = await t.call({ method: 'GET', url: `${MANAGEMENT}/${collection}${query}`, token });
        assert.equal(page.status, 200);
        assert.equal(page.headers['content-type'], 'application/json');
        assert.equal(page.text, reserialised(page.text), `${collection}${query}`);
      }
      const all = await t.call({ method: 'GET', url: `${MANAGEMENT}/${collection}?limit=-1`, token });
      const ids = (all.body as { data: { id: string }[] }).data.map((entity) => entity.id);
      assert.ok(ids.length >= strings.length);
      for (const id of ids) {
        const detail = await t.call({ method: 'GET', url: `${MANAGEMENT}/${collection}/${id}`, token });
        assert.equal(detail.status, 200);
        assert.equal(detail.text, reserialised(detail.text), `${collection}/${id}`);
      }
    });
  }
});
