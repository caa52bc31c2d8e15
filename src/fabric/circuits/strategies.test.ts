import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  rankTerminators,
  STICKINESS_TOKEN_KEY,
  Strategies,
  weightedChoice,
  type CandidateTerminator,
} from './strategies.js';
import { applyCostEvent, biasedCost, DynamicCosts, FailureCosts } from './terminator-costs.js';

const t = (id: string, cost = 0, precedence = 'default'): CandidateTerminator => ({ id, cost, precedence });
const pick = (
  strategies: Strategies,
  name: string,
  terminators: CandidateTerminator[],
  peerData = new Map<number, Uint8Array>(),
) => strategies.get(name)!.select(rankTerminators(terminators, strategies.dynamic), peerData);

describe('terminator costs', () => {
  it('places costs in precedence bands that never overlap', () => {
    assert.equal(biasedCost('required', 0), 0);
    assert.equal(biasedCost('default', 0), 65535 * 4);
    assert.equal(biasedCost('failed', 0), 65535 * 8);
    // A required terminator at the top of its band still ranks before a default one with no cost.
    assert.ok(biasedCost('required', 10_000_000) < biasedCost('default', 0));
  });

  it('adds 2 per circuit, 20 per failure (paid back by successes), and removes 2 when a circuit ends', () => {
    const dynamic = new DynamicCosts();
    const failures = new FailureCosts();
    applyCostEvent('dialSucceeded', 'a', failures, dynamic);
    assert.equal(dynamic.get('a'), 2);
    applyCostEvent('dialFailed', 'a', failures, dynamic);
    assert.equal(dynamic.get('a'), 22);
    // A success pays back 2 of the failure's 20 and costs the circuit's 2: no change.
    applyCostEvent('dialSucceeded', 'a', failures, dynamic);
    assert.equal(dynamic.get('a'), 22);
    applyCostEvent('circuitRemoved', 'a', failures, dynamic);
    applyCostEvent('circuitRemoved', 'a', failures, dynamic);
    assert.equal(dynamic.get('a'), 18);
    // The minute's credit pays back 5 more of the 18 failure cost left.
    failures.creditOverTime(dynamic);
    assert.equal(dynamic.get('a'), 13);
  });

  it('caps what failures add at 16383', () => {
    const failures = new FailureCosts();
    let total = 0;
    for (let i = 0; i < 1000; i++) total += failures.failure('a');
    assert.equal(total, 16383);
  });
});

describe('strategies', () => {
  it('smartrouting takes the lowest cost, and the circuits it routes make the next dial go elsewhere', () => {
    const strategies = new Strategies();
    assert.equal(pick(strategies, 'smartrouting', [t('a', 5), t('b', 3)]).chosen.id, 'b');
    strategies.get('smartrouting')!.notify('dialSucceeded', 'b');
    strategies.get('smartrouting')!.notify('dialSucceeded', 'b');
    // b: 3 + 4 > a: 5
    assert.equal(pick(strategies, 'smartrouting', [t('a', 5), t('b', 3)]).chosen.id, 'a');
  });

  it('an empty or absent strategy name is smartrouting; an unknown one is none', () => {
    const strategies = new Strategies();
    assert.equal(strategies.get('')!.name, 'smartrouting');
    assert.equal(strategies.get(undefined)!.name, 'smartrouting');
    assert.equal(strategies.get('ha'), undefined);
  });

  it('honours precedence before cost: required, then default, then failed', () => {
    const strategies = new Strategies(() => 0.99);
    const terminators = [t('failed', 0, 'failed'), t('default', 0), t('required', 60000, 'required')];
    for (const name of ['smartrouting', 'weighted', 'random', 'sticky'])
      assert.equal(pick(strategies, name, terminators).chosen.id, 'required', name);
    const withoutRequired = [t('failed', 0, 'failed'), t('default', 900)];
    for (const name of ['smartrouting', 'weighted', 'random', 'sticky'])
      assert.equal(pick(strategies, name, withoutRequired).chosen.id, 'default', name);
  });

  it('random picks among the best precedence only, by the random draw', () => {
    const terminators = [t('a'), t('b'), t('c'), t('x', 0, 'failed')];
    assert.equal(pick(new Strategies(() => 0), 'random', terminators).chosen.id, 'a');
    assert.equal(pick(new Strategies(() => 0.5), 'random', terminators).chosen.id, 'b');
    assert.equal(pick(new Strategies(() => 0.999), 'random', terminators).chosen.id, 'c');
  });

  it('weighted favours the cheaper terminator in proportion to cost', () => {
    const terminators = [t('cheap', 1), t('dear', 3)];
    // Thresholds: cheap 1 - 1/4 = 0.75, dear 0.75 + 0.25 = 1.
    assert.equal(pick(new Strategies(() => 0.74), 'weighted', terminators).chosen.id, 'cheap');
    assert.equal(pick(new Strategies(() => 0.76), 'weighted', terminators).chosen.id, 'dear');
    const strategies = new Strategies();
    const ranked = rankTerminators(terminators, strategies.dynamic);
    assert.equal(weightedChoice(ranked.slice(1), () => 0.5).id, 'dear');
  });

  it('sticky returns to the terminator named by the token, and hands out the token of its choice', () => {
    const strategies = new Strategies();
    const first = pick(strategies, 'sticky', [t('a', 1), t('b', 2)]);
    assert.equal(first.chosen.id, 'a');
    assert.equal(Buffer.from(first.peerData.get(STICKINESS_TOKEN_KEY)!).toString(), 'a');
    const token = new Map([[STICKINESS_TOKEN_KEY, new Uint8Array(Buffer.from('b'))]]);
    assert.equal(pick(strategies, 'sticky', [t('a', 1), t('b', 2)], token).chosen.id, 'b');
    // A token for a terminator that went (or ranks in a worse precedence) falls back to the best.
    assert.equal(pick(strategies, 'sticky', [t('a', 1), t('b', 2, 'failed')], token).chosen.id, 'a');
  });

  it('forgetting a terminator drops its dynamic and failure costs', () => {
    const strategies = new Strategies();
    strategies.get('smartrouting')!.notify('dialFailed', 'a');
    assert.equal(strategies.dynamic.get('a'), 20);
    strategies.forget('a');
    assert.equal(strategies.dynamic.get('a'), 0);
    strategies.get('smartrouting')!.notify('dialSucceeded', 'a');
    // No failure cost left to pay back: the success only adds the circuit's 2.
    assert.equal(strategies.dynamic.get('a'), 2);
  });
});
