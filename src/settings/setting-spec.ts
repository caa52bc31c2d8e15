// A setting's spec: where its value may come from, and the parser that checks the raw value (a flag's or a variable's
// text, or whatever the YAML file holds) and says what is wrong in words a message can end with.
import { isIP } from 'node:net';
import { parseDuration } from '../lib/clock.js';

export type Parse<T> = (raw: unknown) => T;

/**
 * The spec of one key of a section `S` of Settings: its parser gives, and its default is, a value of that key's type
 * (a spec whose parser gives another type does not compile).
 */
export type SettingSpec<S> = {
  [K in keyof S & string]: {
    key: K;
    /** Path in the YAML file; also the name used in error messages. */
    yamlPath: string;
    env?: string;
    flag?: string;
    parse: Parse<S[K]>;
    default?: S[K];
  };
}[keyof S & string];

export interface ListenAddress {
  host: string;
  port: number;
}

export const text =
  (min = 1, max = 255): Parse<string> =>
  (raw) => {
    const value = typeof raw === 'number' ? String(raw) : raw;
    if (typeof value !== 'string' || value.length < min || value.length > max) {
      throw new Error(`must be a string of ${min} to ${max} characters`);
    }
    return value;
  };

export const port: Parse<number> = (raw) => {
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65535) {
    throw new Error('must be a port number from 1 to 65535');
  }
  return value;
};

export const host: Parse<string> = (raw) => {
  const value = text(1, 253)(raw);
  if (
    isIP(value) === 0 &&
    !/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(value)
  ) {
    throw new Error('must be a host name or an IP address');
  }
  return value;
};

/** `1m`, `5s` or `250ms`: the way a bound is written in a message. */
export function durationText(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

export const duration =
  (minMs: number, maxMs = Infinity): Parse<number> =>
  (raw) => {
    const ms = typeof raw === 'string' ? parseDuration(raw) : undefined;
    if (ms === undefined) throw new Error('must be a duration such as 30m, 90s or 1h');
    if (ms < minMs) throw new Error(`must be at least ${durationText(minMs)}`);
    if (ms > maxMs) throw new Error(`must be at most ${durationText(maxMs)}`);
    return ms;
  };

export const integer =
  (min: number, max = Number.MAX_SAFE_INTEGER): Parse<number> =>
  (raw) => {
    const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new Error(
        max === Number.MAX_SAFE_INTEGER
          ? `must be a whole number of at least ${min}`
          : `must be a whole number from ${min} to ${max}`,
      );
    }
    return value;
  };

export const flag: Parse<boolean> = (raw) => {
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new Error('must be true or false');
};

/** `host:port`, `[v6]:port`; the port may be 0 (any free port, for tests). */
export const listenAddress: Parse<ListenAddress> = (raw) => {
  const match = typeof raw === 'string' ? /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(raw) : null;
  if (!match) throw new Error('must be host:port, such as 127.0.0.1:9100');
  const portNumber = Number(match[3]);
  if (portNumber > 65535) throw new Error('must be host:port with a port from 0 to 65535');
  return { host: host(match[1] ?? match[2]), port: portNumber };
};

const byteUnits: Record<string, number> = { '': 1, B: 1, KiB: 1024, MiB: 1024 * 1024 };

/** A size in bytes: `65536`, `64KiB` or `1MiB`. */
export const byteSize =
  (minBytes: number): Parse<number> =>
  (raw) => {
    const match = /^(\d+)\s*(B|KiB|MiB)?$/.exec(
      typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '',
    );
    if (!match) throw new Error('must be a size in bytes such as 65536, 64KiB or 1MiB');
    const bytes = Number(match[1]) * (byteUnits[match[2] ?? ''] ?? 1);
    if (bytes < minBytes) throw new Error(`must be at least ${minBytes} bytes`);
    return bytes;
  };

/** A PostgreSQL connection URL; its text is never repeated in a message, as it may hold a password. */
export const databaseUrl: Parse<string> = (raw) => {
  let protocol: string | undefined;
  try {
    protocol = typeof raw === 'string' ? new URL(raw).protocol : undefined;
  } catch {
    protocol = undefined;
  }
  if (typeof raw !== 'string' || (protocol !== 'postgres:' && protocol !== 'postgresql:')) {
    throw new Error('must be a PostgreSQL URL such as postgres://user:password@host:5432/database');
  }
  return raw;
};

export const oneOf =
  (...values: string[]): Parse<string> =>
  (raw) => {
    if (typeof raw !== 'string' || !values.includes(raw)) throw new Error(`must be one of ${values.join(', ')}`);
    return raw;
  };
