import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkFailure,
  checkTimeout,
  checkTimeoutRemaining,
  isCheckPassing,
  type PostureCheckRecord,
  type PostureView,
} from './check-evaluation.js';
import {
  FAILED_SERVICE_REQUESTS_KEPT,
  PROCESS_REPORTS_KEPT,
  addFailedServiceRequest,
  applyResponses,
  emptyPosture,
  parsePosture,
  serializePosture,
  type PostureResponse,
} from './reported-posture.js';

const now = new Date('2030-01-01T00:00:00.000Z');
const check = (typeId: string, details: Record<string, unknown>, id = `${typeId}-check`): PostureCheckRecord => ({
  id,
  name: `${typeId} check`,
  typeId,
  createdAt: '2029-01-01T00:00:00.000Z',
  updatedAt: '2029-01-01T00:00:00.000Z',
  tags: {},
  details,
});

/** What evaluation sees after the identity reported `responses` through API session `as-1`. */
function viewAfter(...responses: PostureResponse[]): PostureView {
  const data = emptyPosture();
  applyResponses(data, 'as-1', responses, now);
  return { data, mfa: { isEnrolled: false }, now };
}

const nothing: PostureView = { data: undefined, mfa: { isEnrolled: false }, now };

describe('posture check evaluation', () => {
  describe('OS', () => {
    const os = check('OS', {
      operatingSystems: [
        { type: 'Linux', versions: ['>=5.0.0 <6.0.0', '6.1.x'] },
        { type: 'Windows', versions: [] },
      ],
    });
    const report = (type: string, version: string): PostureResponse => ({
      typeId: 'OS',
      id: 'os-check',
      type,
      version,
    });

    it('passes a listed type (any case) whose version satisfies one of the ranges', () => {
      assert.equal(isCheckPassing(os, viewAfter(report('linux', '5.4.0'))), true);
      assert.equal(isCheckPassing(os, viewAfter(report('Linux', '6.1.7'))), true);
      assert.equal(isCheckPassing(os, viewAfter(report('Linux', '6.0.0'))), false);
    });

    it('passes any version of a type listed without versions', () => {
      assert.equal(isCheckPassing(os, viewAfter(report('Windows', 'whatever'))), true);
    });

    it('fails another type, a version that is not strict semver, and no report at all', () => {
      assert.equal(isCheckPassing(os, viewAfter(report('macOS', '5.4.0'))), false);
      assert.equal(isCheckPassing(os, viewAfter(report('Linux', '5.4'))), false);
      assert.equal(isCheckPassing(os, nothing), false);
    });

    it('describes a failure with what was reported and what the check expects', () => {
      assert.deepEqual(checkFailure(os, viewAfter(report('macOS', '14.0.0'))), {
        actualValue: { type: 'macOS', version: '14.0.0' },
        expectedValue: os.details.operatingSystems,
        postureCheckId: 'OS-check',
        postureCheckName: 'OS check',
        postureCheckType: 'OS',
      });
      assert.deepEqual(checkFailure(os, nothing).actualValue, { type: '', version: '' });
    });
  });

  describe('MAC', () => {
    const mac = check('MAC', { macAddresses: ['aabbccddeeff'] });
    it('passes when any reported address, cleaned as upstream cleans it, is listed', () => {
      assert.equal(
        isCheckPassing(
          mac,
          viewAfter({ typeId: 'MAC', id: 'x', macAddresses: ['11:22:33:44:55:66', 'AA-BB-CC-DD-EE-FF'] }),
        ),
        true,
      );
      assert.equal(
        isCheckPassing(mac, viewAfter({ typeId: 'MAC', id: 'x', macAddresses: ['11:22:33:44:55:66'] })),
        false,
      );
      assert.equal(isCheckPassing(mac, nothing), false);
      assert.deepEqual(checkFailure(mac, nothing).actualValue, []);
    });
  });

  describe('DOMAIN', () => {
    const domain = check('DOMAIN', { domains: ['corp.example'] });
    it('passes the reported domain in any case, fails others and no report', () => {
      assert.equal(isCheckPassing(domain, viewAfter({ typeId: 'DOMAIN', id: 'x', domain: 'CORP.example' })), true);
      assert.equal(isCheckPassing(domain, viewAfter({ typeId: 'DOMAIN', id: 'x', domain: 'other.example' })), false);
      assert.equal(isCheckPassing(domain, nothing), false);
      assert.deepEqual(checkFailure(domain, nothing).actualValue, '');
    });
  });

  describe('PROCESS', () => {
    const process = check(
      'PROCESS',
      { process: { osType: 'Linux', path: '/usr/bin/agent', hashes: ['abcd'], signerFingerprint: 'ff00' } },
      'proc',
    );
    const report = (overrides: Partial<Extract<PostureResponse, { typeId: 'PROCESS' }>> = {}): PostureResponse => ({
      typeId: 'PROCESS',
      id: 'proc',
      path: '/usr/bin/agent',
      isRunning: true,
      hash: 'AB:CD',
      signerFingerprints: ['FF:00'],
      ...overrides,
    });

    it('passes a running process reported for this check, with a matching hash and signer', () => {
      assert.equal(isCheckPassing(process, viewAfter(report())), true);
    });

    it('matches the report by check id, not by path', () => {
      assert.equal(isCheckPassing(process, viewAfter(report({ path: '/elsewhere' }))), true);
      assert.equal(isCheckPassing(process, viewAfter(report({ id: 'another-check' }))), false);
    });

    it('fails a stopped process, another hash or another signer', () => {
      assert.equal(isCheckPassing(process, viewAfter(report({ isRunning: false }))), false);
      assert.equal(isCheckPassing(process, viewAfter(report({ hash: 'beef' }))), false);
      assert.equal(isCheckPassing(process, viewAfter(report({ signerFingerprints: ['0000'] }))), false);
    });

    it('passes any hash and signer when the check lists none; the latest report for the check counts', () => {
      const bare = check(
        'PROCESS',
        { process: { osType: 'Linux', path: '/usr/bin/agent', hashes: [], signerFingerprint: '' } },
        'proc',
      );
      assert.equal(isCheckPassing(bare, viewAfter(report({ hash: 'beef', signerFingerprints: [] }))), true);
      assert.equal(isCheckPassing(bare, viewAfter(report(), report({ isRunning: false }))), false);
    });

    it('describes a failure with the report and the criteria', () => {
      assert.deepEqual(checkFailure(process, viewAfter(report({ isRunning: false }))), {
        actualValue: { hash: 'abcd', isRunning: false, signerFingerprints: ['ff00'] },
        expectedValue: { hashes: ['abcd'], osType: 'Linux', path: '/usr/bin/agent', signerFingerprint: 'ff00' },
        postureCheckId: 'proc',
        postureCheckName: 'PROCESS check',
        postureCheckType: 'PROCESS',
      });
    });
  });

  describe('PROCESS_MULTI', () => {
    const processes = [
      { osType: 'Linux', path: '/bin/a', hashes: ['aa'], signerFingerprints: [] },
      { osType: 'Linux', path: '/bin/b', hashes: [], signerFingerprints: ['bb'] },
    ];
    const running = (path: string, hash: string, signers: string[] = []): PostureResponse => ({
      typeId: 'PROCESS',
      id: `report-${path}`,
      path,
      isRunning: true,
      hash,
      signerFingerprints: signers,
    });

    it('AllOf needs every listed path running and meeting its hashes and signers', () => {
      const allOf = check('PROCESS_MULTI', { semantic: 'AllOf', processes });
      assert.equal(isCheckPassing(allOf, viewAfter(running('/bin/a', 'AA'), running('/bin/b', 'x', ['BB']))), true);
      assert.equal(isCheckPassing(allOf, viewAfter(running('/bin/a', 'AA'))), false);
      assert.equal(isCheckPassing(allOf, viewAfter(running('/bin/a', 'cc'), running('/bin/b', 'x', ['bb']))), false);
    });

    it('AnyOf needs one of them', () => {
      const anyOf = check('PROCESS_MULTI', { semantic: 'AnyOf', processes });
      assert.equal(isCheckPassing(anyOf, viewAfter(running('/bin/b', 'x', ['bb']))), true);
      assert.equal(isCheckPassing(anyOf, viewAfter(running('/bin/b', 'x', ['cc']))), false);
      assert.equal(isCheckPassing(anyOf, nothing), false);
    });

    it('an entry without a path fails AllOf and is skipped by AnyOf', () => {
      const withEmpty = [...processes, { osType: 'Linux', path: '', hashes: [], signerFingerprints: [] }];
      const reports = viewAfter(running('/bin/a', 'aa'), running('/bin/b', 'x', ['bb']));
      assert.equal(isCheckPassing(check('PROCESS_MULTI', { semantic: 'AllOf', processes: withEmpty }), reports), false);
      assert.equal(isCheckPassing(check('PROCESS_MULTI', { semantic: 'AnyOf', processes: withEmpty }), reports), true);
    });

    it('describes a failure with the semantic and the expected processes', () => {
      const failure = checkFailure(check('PROCESS_MULTI', { semantic: 'AllOf', processes }), nothing);
      assert.deepEqual(failure, {
        actualValue: [],
        expectedValue: processes,
        semantic: 'AllOf',
        postureCheckId: 'PROCESS_MULTI-check',
        postureCheckName: 'PROCESS_MULTI check',
        postureCheckType: 'PROCESS_MULTI',
      });
    });
  });

  describe('MFA', () => {
    const mfa = check('MFA', {
      timeoutSeconds: 300,
      promptOnWake: true,
      promptOnUnlock: false,
      ignoreLegacyEndpoints: false,
    });

    it('fails closed without MFA and reports its timeout', () => {
      assert.equal(isCheckPassing(mfa, nothing), false);
      assert.equal(checkTimeout(mfa), 300);
      assert.equal(checkTimeoutRemaining(mfa, nothing), 0);
      assert.deepEqual(checkFailure(mfa, nothing), {
        actualValue: { passedMfa: false, passedOnUnlock: true, passedOnWake: false, timedOut: true },
        criteria: {
          passedMfaAt: null,
          timeoutRemainingSeconds: 0,
          timeoutSeconds: 300,
          unlockedAt: null,
          wokenAt: null,
        },
        expectedValue: { passedMfa: true, passedOnUnlock: false, passedOnWake: true, timedOut: false },
        postureCheckId: 'MFA-check',
        postureCheckName: 'MFA check',
        postureCheckType: 'MFA',
      });
    });

    it('passes a session that passed MFA, from the inputs the MFA seam gives', () => {
      const view: PostureView = {
        data: undefined,
        mfa: { isEnrolled: true, passedAt: new Date(now.getTime() - 60_000) },
        now,
      };
      assert.equal(isCheckPassing(mfa, view), true);
      assert.equal(checkTimeoutRemaining(mfa, view), 240);
    });

    it('other types have no timeout', () => {
      assert.equal(checkTimeout(check('MAC', { macAddresses: [] })), -1);
      assert.equal(checkTimeoutRemaining(check('MAC', { macAddresses: [] }), nothing), -1);
    });
  });

  it('a check of a type it does not know never passes', () => {
    assert.equal(isCheckPassing(check('RETINA', {}), nothing), false);
  });
});

describe('reported posture', () => {
  it('keeps identity-wide data, and endpoint state per API session, through its stored form', () => {
    const data = emptyPosture();
    applyResponses(data, 'as-1', [{ typeId: 'ENDPOINT_STATE', id: 'x', woken: true }], now);
    const later = new Date(now.getTime() + 1000);
    applyResponses(
      data,
      'as-2',
      [
        { typeId: 'ENDPOINT_STATE', id: 'x', unlocked: true },
        { typeId: 'OS', id: 'os', type: 'Linux', version: '6.1.0' },
      ],
      later,
    );
    const stored = parsePosture(serializePosture(data));
    assert.deepEqual(stored, data);
    assert.deepEqual(stored.endpointStates.get('as-1'), { wokenAt: now, lastUpdatedAt: now });
    assert.deepEqual(stored.endpointStates.get('as-2'), { unlockedAt: later, lastUpdatedAt: later });
    assert.equal(stored.os?.version, '6.1.0');
    assert.deepEqual(stored.os?.lastUpdatedAt, later);
  });

  it('replaces a process report per check id and indexes the latest by path', () => {
    const data = emptyPosture();
    applyResponses(
      data,
      'as',
      [
        { typeId: 'PROCESS', id: 'p1', path: '/a', isRunning: true },
        { typeId: 'PROCESS', id: 'p2', path: '/a', isRunning: false },
      ],
      now,
    );
    applyResponses(data, 'as', [{ typeId: 'PROCESS', id: 'p1', path: '/a', isRunning: true, hash: 'AB' }], now);
    const stored = parsePosture(serializePosture(data));
    assert.deepEqual(
      stored.processes.map((p) => [p.postureCheckId, p.hash]),
      [
        ['p1', 'ab'],
        ['p2', ''],
      ],
    );
    assert.equal(stored.processesByPath.get('/a')?.postureCheckId, 'p1');
  });

  it('keeps only the latest 100 refused session requests, oldest first', () => {
    const data = emptyPosture();
    for (let n = 0; n < FAILED_SERVICE_REQUESTS_KEPT + 5; n++) addFailedServiceRequest(data, { n });
    const kept = parsePosture(serializePosture(data)).failedServiceRequests;
    assert.equal(kept.length, FAILED_SERVICE_REQUESTS_KEPT);
    assert.deepEqual([kept[0], kept.at(-1)], [{ n: 5 }, { n: 104 }]);
  });

  it('keeps the latest process reports only, however many check ids and paths a client makes up', () => {
    const data = emptyPosture();
    const reports = Array.from({ length: PROCESS_REPORTS_KEPT + 5 }, (_, n) => ({
      typeId: 'PROCESS' as const,
      id: `check-${n}`,
      path: `/bin/p${n}`,
      isRunning: true,
    }));
    applyResponses(data, 'as', reports, now);
    const later = new Date(now.getTime() + 1000);
    // Reported again: a known path moves to the newest end instead of being dropped first.
    applyResponses(data, 'as', [{ typeId: 'PROCESS', id: 'check-5', path: '/bin/p5', isRunning: true }], later);
    applyResponses(data, 'as', [{ typeId: 'PROCESS', id: 'check-new', path: '/bin/new', isRunning: true }], later);
    const stored = parsePosture(serializePosture(data));
    assert.equal(stored.processes.length, PROCESS_REPORTS_KEPT);
    assert.equal(stored.processesByPath.size, PROCESS_REPORTS_KEPT);
    assert.equal(stored.processes.at(-1)?.postureCheckId, 'check-new');
    const checkIds = new Set(stored.processes.map((report) => report.postureCheckId));
    assert.equal(checkIds.has('check-5'), true, 'reported again, so kept');
    assert.equal(checkIds.has('check-6'), false, 'the least recently reported went');
    assert.equal(stored.processesByPath.has('/bin/p5'), true);
    assert.equal(stored.processesByPath.has('/bin/p6'), false);
    assert.deepEqual([...stored.processesByPath.keys()].slice(-2), ['/bin/p5', '/bin/new']);
  });
});
