// The six posture check types: which body fields each reads, how upstream checks and stores them, and their API
// shape. Stored lists behave as upstream's bolt buckets do: keyed by value, so de-duplicated and byte-sorted.
import { ApiError } from '../../errors/api-error.js';
import { goValue } from '../../lib/go-format.js';
import { normaliseSet } from '../../crud/entity-store.js';
import { parseRange, SemverError } from '../../lib/semver-range.js';
import { isJsonObject } from '../../lib/object-path.js';
import { omitEmpty } from '../../lib/omit-empty.js';

/** A posture check's type-specific fields, kept together in one JSON column. */
export type Details = Record<string, unknown>;

export interface PostureCheckSubtype {
  /** The top-level body fields of this type; PATCH replaces only those present with a non-null value. */
  fields: readonly string[];
  /** Folds a PATCH's fields into the stored ones when a field is an object patched key by key. */
  merge?(stored: Details, patch: Details): Details;
  /** Checks the fields and returns them as upstream stores them; missing fields get Go's zero values. */
  normalise(input: Details): Details;
  /** The fields as the detail shows them. */
  render(details: Details): Details;
  /** Values of the public `promptOnWake` / `promptOnUnlock` symbols; types without them leave both null. */
  filterValues?(details: Details): { promptOnWake: boolean; promptOnUnlock: boolean };
}

interface OperatingSystem {
  type: string;
  versions: string[];
}

interface ProcessMulti {
  osType: string;
  path: string;
  hashes: string[];
  signerFingerprints: string[];
}

/** A string list from the body, or Go's nil slice. */
const stringsOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
/** A JSON object's entries as details, or none. */
const detailsOf = (value: unknown): Details => (isJsonObject(value) ? value : {});
/** A list of JSON objects, or none. */
const detailsListOf = (value: unknown): Details[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);
/** A string from the body, or Go's zero value. */
const stringOf = (value: unknown): string => (typeof value === 'string' ? value : '');
/** Entries in bolt's bucket order: byte-sorted keys. */
const inKeyOrder = <T>(entries: Map<string, T>): T[] =>
  [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value);

/**
 * Every version must be a blang range; the first bad one is reported as upstream words it
 * (`controller/model/posture_check_model_os.go` validateOsVersions): the field names the OS entry as Go prints
 * the struct, `{Windows [10 abc]}`, and the reason doubles as the value.
 */
function checkVersions(systems: readonly OperatingSystem[]): void {
  for (const os of systems) {
    os.versions.forEach((version, index) => {
      try {
        parseRange(version);
      } catch (error) {
        if (!(error instanceof SemverError)) throw error;
        const printed = `{${os.type} ${goValue(os.versions)}}`;
        const reason = `invalid version for os: [${printed}], version: [${version}]: ${error.message} `;
        throw ApiError.invalidField(`operatingSystems[${printed}][${index}]`, reason, reason);
      }
    });
  }
}

const operatingSystemCheck: PostureCheckSubtype = {
  fields: ['operatingSystems'],
  normalise(input) {
    const given: OperatingSystem[] = detailsListOf(input.operatingSystems).map((os) => ({
      type: stringOf(os.type),
      versions: stringsOf(os.versions),
    }));
    checkVersions(given);
    // One bucket per OS type: a repeated type replaces the earlier entry.
    const byType = new Map(given.map((os) => [os.type, { type: os.type, versions: normaliseSet(os.versions) }]));
    return { operatingSystems: inKeyOrder(byType) };
  },
  render: (details) => ({ operatingSystems: details.operatingSystems ?? [] }),
};

/** Upstream's cleanMacAddress: lower case, every character that is not a hex digit removed. */
export function cleanMacAddress(address: string): string {
  return address.toLowerCase().replace(/[^a-f0-9]/g, '');
}

const macAddressCheck: PostureCheckSubtype = {
  fields: ['macAddresses'],
  normalise: (input) => ({ macAddresses: normaliseSet(stringsOf(input.macAddresses).map(cleanMacAddress)) }),
  render: (details) => ({ macAddresses: details.macAddresses ?? [] }),
};

const domainCheck: PostureCheckSubtype = {
  fields: ['domains'],
  normalise: (input) => ({ domains: normaliseSet(stringsOf(input.domains)) }),
  render: (details) => ({ domains: details.domains ?? [] }),
};

const processCheck: PostureCheckSubtype = {
  fields: ['process'],
  // Upstream maps `process.hashes`, `process.path`, … to separate stored fields, so a PATCH keeps those it omits.
  merge(stored, patch) {
    if (patch.process === undefined) return stored;
    const present = Object.entries(detailsOf(patch.process)).filter(
      ([, value]) => value !== null && value !== undefined,
    );
    return { process: { ...detailsOf(stored.process), ...Object.fromEntries(present) } };
  },
  normalise(input) {
    const given = detailsOf(input.process);
    return {
      process: {
        osType: stringOf(given.osType),
        path: stringOf(given.path),
        hashes: normaliseSet(stringsOf(given.hashes).map((hash) => hash.toLowerCase())),
        signerFingerprint: stringOf(given.signerFingerprint).toLowerCase(),
      },
    };
  },
  render(details) {
    const { signerFingerprint, ...rest } = detailsOf(details.process);
    // `signerFingerprint` is omitempty in the REST model: an empty one is left out.
    return { process: { ...rest, ...omitEmpty({ signerFingerprint }) } };
  },
};

const processMultiCheck: PostureCheckSubtype = {
  fields: ['semantic', 'processes'],
  normalise(input) {
    // One bucket per `<osType>-<path>`: a repeated process replaces the earlier entry.
    const byBucketKey = new Map<string, ProcessMulti>();
    for (const given of detailsListOf(input.processes)) {
      const entry = {
        osType: stringOf(given.osType),
        path: stringOf(given.path),
        hashes: normaliseSet(stringsOf(given.hashes)),
        signerFingerprints: normaliseSet(stringsOf(given.signerFingerprints)),
      };
      byBucketKey.set(`${entry.osType}-${entry.path}`, entry);
    }
    return { semantic: stringOf(input.semantic), processes: inKeyOrder(byBucketKey) };
  },
  render: (details) => ({ semantic: details.semantic, processes: details.processes ?? [] }),
};

const mfaCheck: PostureCheckSubtype = {
  fields: ['timeoutSeconds', 'promptOnWake', 'promptOnUnlock', 'ignoreLegacyEndpoints'],
  normalise(input) {
    const timeout = typeof input.timeoutSeconds === 'number' ? input.timeoutSeconds : 0;
    return {
      // Zero or less means no timeout, stored as -1 (upstream `db/posture_check_mfa.go`).
      timeoutSeconds: timeout <= 0 ? -1 : timeout,
      promptOnWake: input.promptOnWake === true,
      promptOnUnlock: input.promptOnUnlock === true,
      ignoreLegacyEndpoints: input.ignoreLegacyEndpoints === true,
    };
  },
  // Upstream's REST model marks all four omitempty, so a false flag vanishes from its detail and a client cannot
  // tell "patched to false" from "not there"; every flag is rendered, false included.
  render: (details) => ({ ...details }),
  filterValues: (details) => ({
    promptOnWake: details.promptOnWake === true,
    promptOnUnlock: details.promptOnUnlock === true,
  }),
};

const subtypes = new Map<string, PostureCheckSubtype>([
  ['OS', operatingSystemCheck],
  ['MAC', macAddressCheck],
  ['DOMAIN', domainCheck],
  ['PROCESS', processCheck],
  ['PROCESS_MULTI', processMultiCheck],
  ['MFA', mfaCheck],
]);

/** The type behind a `typeId`; undefined for anything else (the contract also lets its base names through). */
export function postureCheckSubtype(typeId: unknown): PostureCheckSubtype | undefined {
  return typeof typeId === 'string' ? subtypes.get(typeId) : undefined;
}
