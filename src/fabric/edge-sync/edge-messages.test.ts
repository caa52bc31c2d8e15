import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { ClientHelloSchema, ServerHelloSchema } from '../messages/gen/edge_ctrl_pb.js';
import { apiSessionAdded, apiSessionUpdated, newSyncId, readClientHello, serverHello } from './edge-messages.js';

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

describe('edge messages', () => {
  it('offers the router data model in the ServerHello, as upstream always does', () => {
    const hello = serverHello('v1.1.8');
    assert.equal(hello.contentType, 20000);
    assert.deepEqual([...hello.headers], [[1024, Uint8Array.of(1)]]);
    const body = fromBinary(ServerHelloSchema, hello.body);
    assert.equal(body.version, 'v1.1.8');
    assert.deepEqual(body.data, { instant: 'true', routerModel: 'true' });
  });

  it('builds supportedProtocols from the advertised listeners', () => {
    const listener = (protocol: string, hostname: string, port: number) => ({
      address: { value: `${protocol}:0.0.0.0:${port}`, protocol, hostname: '0.0.0.0', port },
      advertise: { value: `${protocol}:${hostname}:${port}`, protocol, hostname, port },
    });
    const body = toBinary(
      ClientHelloSchema,
      create(ClientHelloSchema, {
        hostname: 'edge.example',
        protocols: ['tls', 'wss'],
        protocolPorts: ['3022', '443'],
        listeners: [listener('tls', 'edge.example', 3022), listener('wss', 'ws.example', 443)],
      }),
    );
    assert.deepEqual(readClientHello(body), {
      hostname: 'edge.example',
      supportedProtocols: { tls: 'tls://edge.example:3022', wss: 'wss://ws.example:443' },
    });
  });

  it('falls back to protocols and ports at the one hostname for routers older than the listeners field', () => {
    const body = toBinary(
      ClientHelloSchema,
      create(ClientHelloSchema, { hostname: 'old.example', protocols: ['tls', 'ws'], protocolPorts: ['3022'] }),
    );
    assert.deepEqual(readClientHello(body), {
      hostname: 'old.example',
      supportedProtocols: { tls: 'tls://old.example:3022' },
    });
  });

  it('writes the full-state headers as the router parses them', () => {
    const message = apiSessionAdded([{ id: 'a', token: 't', certFingerprints: ['f'] }], true, {
      id: 'c1',
      isLast: false,
      sequence: 3,
    });
    assert.equal(message.contentType, 20200);
    assert.equal(text(message.headers.get(1013)), 'instant');
    assert.equal(text(message.headers.get(1014)), '{"id":"c1","isLast":false,"sequence":3}');
  });

  it('leaves the state header of an update present and empty, as upstream does', () => {
    const message = apiSessionUpdated([{ id: 'a', token: 't', certFingerprints: [] }]);
    assert.equal(message.contentType, 20201);
    assert.equal(text(message.headers.get(1013)), 'instant');
    assert.deepEqual(message.headers.get(1014), new Uint8Array(0));
  });

  it('makes each sync id sort after the previous one, even within one millisecond', () => {
    const now = new Date('2026-11-27T05:00:00Z');
    const ids = Array.from({ length: 50 }, () => newSyncId(now));
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
  });
});
