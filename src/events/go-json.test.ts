import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goJsonText } from './go-json.js';

// Each expectation is what Go 1.26's json.Marshal writes for the same value (encoding/json encode.go: htmlSafeSet,
// `\u2028`/`\u2029`, sorted map keys, invalid UTF-8 as U+FFFD).
describe("events' JSON as Go writes it", () => {
  it('escapes <, > and & and the line separators, leaves the rest as JSON.stringify writes it', () => {
    assert.equal(
      goJsonText({
        name: '</script><b>&amp;',
        line: 'a\u2028b\u2029c',
        control: '\u0000\b\f\n\r\t\u001f',
        del: '\u007f',
      }),
      '{"name":"\\u003c/script\\u003e\\u003cb\\u003e\\u0026amp;","line":"a\\u2028b\\u2029c",' +
        '"control":"\\u0000\\b\\f\\n\\r\\t\\u001f","del":"\u007f"}',
    );
    assert.equal(goJsonText({ emoji: '😀 é 中' }), '{"emoji":"😀 é 中"}');
  });

  it('writes a lone surrogate as U+FFFD, and leaves an escaped backslash before "ud800" alone', () => {
    assert.equal(goJsonText({ a: 'x\ud800y', b: 'end\udfff' }), '{"a":"x\ufffdy","b":"end\ufffd"}');
    assert.equal(goJsonText({ a: '\\ud800' }), '{"a":"\\\\ud800"}');
    assert.equal(goJsonText({ a: '\\\ud800' }), '{"a":"\\\\\ufffd"}');
  });

  it("sorts the keys of upstream's maps (tags, metadata, usage, …), not of its structs", () => {
    assert.equal(
      goJsonText({ z: 1, tags: { serviceId: 's', clientId: 'c', hostId: 'h' }, a: { y: 1, b: 2 } }),
      '{"z":1,"tags":{"clientId":"c","hostId":"h","serviceId":"s"},"a":{"y":1,"b":2}}',
    );
    assert.equal(
      goJsonText({ tags: null, usage: { 'ingress.tx': 1, 'egress.rx': 2 } }),
      '{"tags":null,"usage":{"egress.rx":2,"ingress.tx":1}}',
    );
  });
});
