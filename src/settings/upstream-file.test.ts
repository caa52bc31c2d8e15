import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { loadSettings } from './load-settings.js';
import { SettingsError } from './settings.schema.js';

// The settings file the upstream v1.1.8 controller of the migration fixtures ran with (its home as ${HOME_DIR}).
const recorded = new URL('../../test/migrate/fixtures/v1.1.8/ctrl.yaml', import.meta.url).pathname;
/** The loopback port that controller listened on (a free one, chosen at recording). */
const recordedPort = Number(/listener: tls:127\.0\.0\.1:(\d+)/.exec(readFileSync(recorded, 'utf8'))?.[1]);

describe("upstream's settings file", () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'upstream-settings-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it('is taken as written: ${VAR} expanded, keys with a meaning here honoured where they mean it', () => {
    const settings = loadSettings({ argv: ['--config', recorded], env: { HOME_DIR: '/srv/ziti' }, cwd });
    assert.equal(settings.advertisedHost, '127.0.0.1');
    assert.equal(settings.advertisedPort, recordedPort);
    assert.equal(settings.bindAddress, '127.0.0.1');
    assert.equal(settings.ctrlBindAddress, '127.0.0.1');
    assert.equal(settings.ctrlAdvertisedPort, recordedPort);
    assert.equal(settings.sessionTimeoutMs, 30 * 60_000);
    assert.equal(settings.pkiServerCert, '/srv/ziti/pki/intermediate-ca/certs/server.chain.pem');
    assert.equal(settings.pkiKey, '/srv/ziti/pki/intermediate-ca/keys/server.key');
    assert.equal(settings.pkiServerKey, undefined);
    assert.equal(settings.pkiCa, '/srv/ziti/pki/root-ca/certs/root-ca.cert');
    assert.equal(settings.pkiSigningCert, '/srv/ziti/pki/intermediate-ca/certs/intermediate-ca.cert');
    assert.equal(settings.pkiSigningKey, '/srv/ziti/pki/intermediate-ca/keys/intermediate-ca.key');
  });

  it('lists the keys without a meaning here instead of refusing them', () => {
    const settings = loadSettings({ argv: ['--config', recorded], env: { HOME_DIR: '/srv/ziti' }, cwd });
    assert.deepEqual(settings.ignoredSettings, [
      'trustDomain',
      'db',
      'identity.cert',
      'edge.enrollment.edgeIdentity.duration',
      'edge.enrollment.edgeRouter.duration',
    ]);
  });

  it('moves the control options, heartbeats and a separate control listener', () => {
    const file = join(cwd, 'ctrl.yml');
    writeFileSync(
      file,
      [
        'v: 3',
        'ctrl:',
        '  listener: tls:0.0.0.0:6262',
        '  options:',
        '    advertiseAddress: tls:ctrl.example.com:6262',
        '    connectTimeoutMs: 5000',
        '    maxQueuedConnects: 50',
        '    routerHeartbeats:',
        '      sendInterval: 30s',
        '      checkInterval: 10s',
        '      closeUnresponsiveTimeout: 90s',
        'edge:',
        '  api:',
        '    address: ctrl.example.com:1280',
        'events:',
        '  jsonLogger:',
        '    subscriptions: [{ type: fabric.circuits }]',
        '    handler: { type: file, format: json, path: /tmp/ziti-events.log }',
        '',
      ].join('\n'),
    );
    const settings = loadSettings({ argv: ['--config', file], env: {}, cwd });
    assert.equal(settings.ctrlBindAddress, '0.0.0.0');
    assert.equal(settings.ctrlAdvertisedHost, 'ctrl.example.com');
    assert.equal(settings.ctrlAdvertisedPort, 6262);
    assert.equal(settings.ctrlConnectTimeoutMs, 5000);
    assert.equal(settings.ctrlHeartbeatIntervalMs, 30_000);
    assert.equal(settings.ctrlCloseUnresponsiveMs, 90_000);
    assert.equal(settings.advertisedHost, 'ctrl.example.com');
    assert.equal(settings.advertisedPort, 1280);
    assert.ok(settings.ignoredSettings.includes('ctrl.options.maxQueuedConnects'));
    assert.ok(settings.ignoredSettings.includes('ctrl.options.routerHeartbeats.checkInterval'));
    assert.ok(!settings.ignoredSettings.some((key) => key.startsWith('events')), 'the events: section is honoured');
  });

  it('still checks the values it honours, naming the key', () => {
    const file = join(cwd, 'ctrl.yml');
    writeFileSync(file, 'v: 3\nedge:\n  api:\n    sessionTimeout: soon\n');
    assert.throws(() => loadSettings({ argv: ['--config', file], env: {}, cwd }), SettingsError);
    assert.throws(() => loadSettings({ argv: ['--config', file], env: {}, cwd }), /edge\.api\.sessionTimeout/);
  });

  it('refuses half a PKI named by path', () => {
    const file = join(cwd, 'ctrl.yml');
    writeFileSync(file, 'v: 3\nidentity:\n  server_cert: a.pem\n  key: a.key\n');
    assert.throws(() => loadSettings({ argv: ['--config', file], env: {}, cwd }), /identity\.ca.*must be set too/);
  });

  it('keeps refusing unknown keys in a file of ours (no v:)', () => {
    const file = join(cwd, 'ctrl.yml');
    writeFileSync(file, 'trustDomain: x\n');
    assert.throws(() => loadSettings({ argv: ['--config', file], env: {}, cwd }), /\[trustDomain\] unknown setting/);
  });
});
