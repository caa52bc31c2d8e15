// The reference binary must be the release: a build reporting another version (v0.0.0 without the release's version
// strings) behaves differently, so the harness refuses it instead of comparing against it. Fake binaries stand in.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { UpstreamUnavailable, upstreamBinary } from '../../scripts/upstream.js';

describe('upstreamBinary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'upstream-binary-'));
  const saved = process.env.ZITI_UPSTREAM_BIN;
  after(() => {
    if (saved === undefined) delete process.env.ZITI_UPSTREAM_BIN;
    else process.env.ZITI_UPSTREAM_BIN = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  /** A `ziti` that answers `ziti version` with the given script body. */
  const fake = (name: string, body: string) => {
    const file = join(dir, name);
    writeFileSync(file, `#!/bin/sh\n[ "$1" = version ] || exit 3\n${body}\n`);
    chmodSync(file, 0o755);
    process.env.ZITI_UPSTREAM_BIN = file;
    return file;
  };

  it('takes a binary that reports v1.1.8', () => {
    const file = fake('release', 'echo v1.1.8');
    assert.equal(upstreamBinary(), file);
  });

  it('refuses a development build (v0.0.0) and says what it reports', () => {
    fake('dev', 'echo v0.0.0');
    assert.throws(
      () => upstreamBinary(),
      (error: Error) => error instanceof UpstreamUnavailable && /reports v0\.0\.0, not v1\.1\.8/.test(error.message),
    );
  });

  it('refuses a binary whose version command fails', () => {
    fake('broken', 'echo "no such command" >&2; exit 1');
    assert.throws(
      () => upstreamBinary(),
      (error: Error) =>
        error instanceof UpstreamUnavailable && /reports no version \(no such command\)/.test(error.message),
    );
  });
});
