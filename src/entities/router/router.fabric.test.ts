import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fabricLiveFields, type FabricLiveState } from './router.fabric.js';

const offline: FabricLiveState = { hostname: '', isOnline: false, supportedProtocols: {}, syncStatus: 'SYNC_UNKNOWN' };
const versionInfo = {
  version: 'v1.1.8',
  revision: 'abc',
  buildDate: '2024-07-29 13:47:45',
  os: 'linux',
  arch: 'amd64',
};
const listenerAddresses = [{ address: 'tls:router-1:6004', protocol: 'tls' }];

describe('fabricLiveFields', () => {
  it('shows a router that is not connected with null listeners and no versionInfo, whatever is stored', () => {
    assert.deepEqual(fabricLiveFields(offline), { connected: false, listenerAddresses: null });
    assert.deepEqual(fabricLiveFields({ ...offline, versionInfo, listenerAddresses }), {
      connected: false,
      listenerAddresses: null,
    });
  });

  it("shows a connected router's reported version and link listeners", () => {
    assert.deepEqual(fabricLiveFields({ ...offline, isOnline: true, versionInfo, listenerAddresses }), {
      connected: true,
      listenerAddresses,
      versionInfo,
    });
  });

  it('shows a connected router that reported neither with null listeners and no versionInfo', () => {
    assert.deepEqual(fabricLiveFields({ ...offline, isOnline: true }), { connected: true, listenerAddresses: null });
  });
});
