import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { envelope, envelopeWriter, listEnvelope, serializeJson, type Pagination } from './envelope.js';
import { hostileStrings, hostileValue } from './envelope.test-values.js';

describe('envelopeWriter', () => {
  const pages: Pagination[] = [
    { limit: 10, offset: 0, totalCount: 0 },
    { limit: 500, offset: 25, totalCount: 1_000_000 },
    { limit: 'none', offset: 0, totalCount: 3 },
    { limit: 'none', offset: 7, totalCount: 7 },
  ];
  const pageData = [
    [],
    [{ id: 'a' }],
    hostileStrings.map((text, index) => ({ id: String(index), name: text, tags: hostileValue(text) })),
  ];

  for (const fields of [undefined, [], ['id', 'name', 'tags', 'roleAttributes']]) {
    it(`writes list envelopes as serializeJson does (filterable fields: ${JSON.stringify(fields)})`, () => {
      const writer = envelopeWriter(fields);
      for (const pagination of pages) {
        for (const data of pageData)
          assert.equal(writer.list(data, pagination), serializeJson(listEnvelope(data, pagination, fields)));
      }
    });
  }

  it('writes one entity as serializeJson does', () => {
    const writer = envelopeWriter(['id']);
    for (const text of hostileStrings) {
      const data = { id: text, nested: hostileValue(text), skipped: undefined };
      assert.equal(writer.one(data), serializeJson(envelope(data)));
    }
  });
});
