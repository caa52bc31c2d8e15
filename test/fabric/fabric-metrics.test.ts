import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Metrics } from '../../src/system/metrics.js';

describe('circuit and terminator metrics', () => {
  it('count circuits created, failed by cause and ended by reason, terminator changes, and what is held', async () => {
    const metrics = new Metrics({
      openConnections: () => Promise.resolve(0),
      apiSessions: () => Promise.resolve(0),
      circuits: () => 3,
      terminators: () => Promise.resolve(5),
    });
    metrics.circuitCreated(0.004);
    metrics.circuitCreated(0.2);
    metrics.circuitFailed('NO_TERMINATORS');
    metrics.circuitEnded('dialling side closed');
    metrics.terminatorsCreated(2);
    metrics.terminatorsRemoved(1);
    const text = await metrics.registry.metrics();
    const value = (line: string) =>
      Number(new RegExp(`^${line.replace(/[{}"]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text)?.[1]);
    assert.equal(value('ziti_circuit_setup_duration_seconds_count'), 2);
    assert.equal(value('ziti_circuit_setup_duration_seconds_bucket{le="0.005"}'), 1);
    assert.equal(value('ziti_circuit_failures_total{cause="NO_TERMINATORS"}'), 1);
    assert.equal(value('ziti_circuits_ended_total{reason="dialling side closed"}'), 1);
    assert.equal(value('ziti_router_terminator_changes_total{change="created"}'), 2);
    assert.equal(value('ziti_router_terminator_changes_total{change="removed"}'), 1);
    assert.equal(value('ziti_circuits'), 3);
    assert.equal(value('ziti_terminators'), 5);
  });
});
