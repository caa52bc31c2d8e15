import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serverAltNames } from './controller-certificates.js';

const loopback = [
  { type: 'dns', value: 'localhost' },
  { type: 'ip', value: '127.0.0.1' },
  { type: 'ip', value: '::1' },
];

void describe('serverAltNames', () => {
  void it('puts a host name first as a DNS name, then the loopback names', () => {
    assert.deepEqual(serverAltNames('ctrl.example.com'), [{ type: 'dns', value: 'ctrl.example.com' }, ...loopback]);
  });

  void it('puts IPv4 and IPv6 addresses in as IP names', () => {
    assert.deepEqual(serverAltNames('10.0.0.5')[0], { type: 'ip', value: '10.0.0.5' });
    assert.deepEqual(serverAltNames('2001:db8::7')[0], { type: 'ip', value: '2001:db8::7' });
  });

  void it('does not repeat a loopback name', () => {
    assert.deepEqual(serverAltNames('localhost'), loopback);
    assert.deepEqual(serverAltNames('127.0.0.1'), loopback);
    assert.deepEqual(serverAltNames('::1'), loopback);
  });
});
