import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { ListenersSchema, RouterMetadataSchema, RouterCapability } from './gen/ctrl_pb.js';
import { ClientHelloSchema, ContentType } from './gen/edge_ctrl_pb.js';

const here = new URL('.', import.meta.url).pathname;
const root = new URL('../../..', import.meta.url).pathname;

describe('fabric messages', () => {
  it('the generated code is what the .proto files generate (run `npm run messages` after editing them)', () => {
    const out = mkdtempSync(join(tmpdir(), 'messages-'));
    try {
      const config = readFileSync(join(here, 'buf.gen.yaml'), 'utf8').replace('out: gen', `out: ${out}`);
      writeFileSync(join(out, 'buf.gen.yaml'), config);
      execFileSync(join(root, 'node_modules/.bin/buf'), ['generate', '--template', join(out, 'buf.gen.yaml')], {
        cwd: here,
        env: { ...process.env, PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH ?? ''}` },
      });
      const committed = readdirSync(join(here, 'gen')).sort();
      assert.deepEqual(
        readdirSync(out)
          .filter((name) => name.endsWith('.ts'))
          .sort(),
        committed,
      );
      for (const name of committed)
        assert.equal(readFileSync(join(out, name), 'utf8'), readFileSync(join(here, 'gen', name), 'utf8'), name);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('reads the hello headers a real v1.1.8 router sent', () => {
    // Captured from `ziti router run` (v1.1.8) against a probe listener (docs/reference/router-control-plane.md).
    const listeners = Buffer.from(
      '0a270a13' +
        Buffer.from('tls:127.0.0.1:10080').toString('hex') +
        '1203' +
        Buffer.from('tls').toString('hex') +
        '2207' +
        Buffer.from('default').toString('hex') +
        '2a02' +
        Buffer.from('lo').toString('hex'),
      'hex',
    );
    const decoded = fromBinary(ListenersSchema, listeners);
    assert.equal(decoded.listeners.length, 1);
    assert.deepEqual(
      { ...decoded.listeners[0], $typeName: undefined },
      {
        $typeName: undefined,
        address: 'tls:127.0.0.1:10080',
        protocol: 'tls',
        costTags: [],
        groups: ['default'],
        localBinding: 'lo',
      },
    );
    assert.deepEqual(fromBinary(RouterMetadataSchema, Buffer.from('0a0101', 'hex')).capabilities, [
      RouterCapability.LinkManagement,
    ]);
    assert.equal(
      Buffer.from(
        toBinary(
          RouterMetadataSchema,
          create(RouterMetadataSchema, { capabilities: [RouterCapability.LinkManagement] }),
        ),
      ).toString('hex'),
      '0a0101',
    );
  });

  it('numbers content types as upstream does', () => {
    assert.equal(ContentType.ServerHelloType, 20000);
    assert.equal(ContentType.CreateCircuitV2RequestType, 20218);
    const hello = create(ClientHelloSchema, { hostname: 'router.local', protocols: ['tls'] });
    assert.equal(fromBinary(ClientHelloSchema, toBinary(ClientHelloSchema, hello)).hostname, 'router.local');
  });
});
