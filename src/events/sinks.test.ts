import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ZitiEvent } from './event-types.js';
import { openFileWriter } from './file-writer.js';
import { QueuedSink, type LineWriter } from './sinks.js';

const event = (id: string): ZitiEvent => ({
  namespace: 'fabric.routers',
  event_type: 'router-online',
  timestamp: '2026-11-29T10:00:00Z',
  router_id: id,
  router_online: true,
});

describe('event handlers', () => {
  it('a stuck handler drops past its queue and counts what it dropped, warning at most every 10 s', async () => {
    let release: () => void = () => undefined;
    const written: string[] = [];
    const stuck: LineWriter = {
      write: (line) =>
        new Promise<void>((resolve) => {
          written.push(line);
          release = resolve;
        }),
      close: () => Promise.resolve(),
    };
    const warnings: object[] = [];
    let now = 0;
    const sink = new QueuedSink('stuck', 3, stuck, { warn: (fields) => warnings.push(fields) }, () => now);
    // 1. The first event is being written (and stays stuck); three wait; the rest are dropped at once.
    for (let index = 0; index < 10; index++) sink.accept(event(`r${index}`));
    assert.equal(sink.dropped, 6);
    assert.equal(warnings.length, 1, 'one warning for the burst');
    now += 10_000;
    sink.accept(event('late'));
    assert.equal(warnings.length, 2);
    assert.deepEqual(warnings[1], { handler: 'stuck', dropped: 6, droppedTotal: 7, queued: 3 });
    // 2. Once the writer moves, what waited is written in order.
    for (let index = 0; index < 4; index++) {
      release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.deepEqual(
      written.map((line) => (JSON.parse(line) as { router_id: string }).router_id),
      ['r0', 'r1', 'r2', 'r3'],
    );
  });

  it('the file handler appends JSON lines and rotates past maxsizemb, keeping maxbackups', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'ziti-events-file-'));
    try {
      let at = Date.UTC(2026, 10, 29, 10);
      const writer = await openFileWriter({
        path: join(folder, 'events.json'),
        maxSizeBytes: 100,
        maxBackups: 2,
        now: () => new Date((at += 1000)),
      });
      for (let index = 0; index < 8; index++) await writer.write(JSON.stringify({ n: index, pad: 'x'.repeat(30) }));
      await writer.close();
      const files = readdirSync(folder).sort();
      assert.deepEqual(files, [
        'events-2026-11-29T10-00-02.000.json',
        'events-2026-11-29T10-00-03.000.json',
        'events.json',
      ]);
      const current = readFileSync(join(folder, 'events.json'), 'utf8').trim().split('\n');
      assert.deepEqual(
        current.map((line) => (JSON.parse(line) as { n: number }).n),
        [6, 7],
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("writes each event as Go's json.Marshal does (HTML characters escaped, map keys sorted)", async () => {
    const written: string[] = [];
    const writer: LineWriter = {
      write: (line) => Promise.resolve(void written.push(line)),
      close: () => Promise.resolve(),
    };
    const sink = new QueuedSink('go', 10, writer, { warn: () => undefined }, () => 0);
    sink.accept({
      namespace: 'fabric.usage',
      version: 3,
      source_id: 'r<1>',
      circuit_id: 'c&1',
      usage: { 'ingress.tx': 1, 'egress.rx': 2 },
      interval_start_utc: 0,
      interval_length: 60,
      tags: null,
    });
    await sink.close();
    assert.deepEqual(written, [
      '{"namespace":"fabric.usage","version":3,"source_id":"r\\u003c1\\u003e","circuit_id":"c\\u00261",' +
        '"usage":{"egress.rx":2,"ingress.tx":1},"interval_start_utc":0,"interval_length":60,"tags":null}',
    ]);
  });
});
