// Fetches an external JWT signer's JWKS document: http(s) only, bounded in time and size, redirects followed only
// within the same host, so a signer's endpoint cannot turn the controller into a fetcher of arbitrary URLs.
import type { JSONWebKeySet } from 'jose';
import { parseJsonValue } from '../../lib/json-value.js';
import { isJsonObject } from '../../lib/object-path.js';

export interface JwksFetchLimits {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
}

export const defaultJwksLimits: JwksFetchLimits = { timeoutMs: 5_000, maxBytes: 256 * 1024, maxRedirects: 3 };

export class JwksFetchError extends Error {}

export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > maxBytes) throw new JwksFetchError(`JWKS larger than ${maxBytes} bytes`);
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new JwksFetchError(`JWKS larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function fetchJwks(endpoint: string, limits: JwksFetchLimits = defaultJwksLimits): Promise<JSONWebKeySet> {
  if (!isHttpUrl(endpoint)) throw new JwksFetchError('the JWKS endpoint must be an http(s) URL');
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let url = new URL(endpoint);
  for (let hop = 0; ; hop++) {
    const response = await fetch(url, { redirect: 'manual', signal, headers: { accept: 'application/json' } });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const next = new URL(response.headers.get('location') ?? '', url);
      if (hop >= limits.maxRedirects || next.host !== url.host || !isHttpUrl(next.href))
        throw new JwksFetchError(`JWKS redirect to ${next.href} refused`);
      url = next;
      continue;
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new JwksFetchError(`JWKS endpoint answered ${response.status}`);
    }
    const parsed = parseJsonValue(await readCapped(response, limits.maxBytes));
    const keys = isJsonObject(parsed) ? parsed.keys : undefined;
    if (!Array.isArray(keys)) throw new JwksFetchError('the JWKS document has no keys array');
    return {
      keys: keys.filter((key): key is JSONWebKeySet['keys'][number] => typeof key === 'object' && key !== null),
    };
  }
}
