// What clients report about their device, per identity and per API session (ziti `model/posture_response_model.go`
// PostureCache). Upstream keeps it in one process's memory; here it is one JSON document per identity in the
// database, so a report made through one instance counts on every instance sharing it (and survives a restart;
// SDKs still send everything again when they see a new controller instance id).
import { formatTimestamp } from '../lib/clock.js';
import { deleteOldest } from '../lib/collections.js';
import { putReportedPosture, reportedPostureText } from '../store/queries/posture.js';
import type { Db } from '../store/store.js';

interface Report {
  /** The posture check id the client named (never validated, as upstream). */
  postureCheckId: string;
  lastUpdatedAt: Date;
}

export interface OsReport extends Report {
  type: string;
  version: string;
  build: string;
}

export interface MacReport extends Report {
  addresses: string[];
}

export interface DomainReport extends Report {
  domain: string;
}

export interface ProcessReport extends Report {
  path: string;
  isRunning: boolean;
  hash: string;
  signerFingerprints: string[];
}

/** Per API session: when the device last woke or was unlocked. */
export interface EndpointState {
  wokenAt?: Date;
  unlockedAt?: Date;
  lastUpdatedAt: Date;
}

/** One rendered `failedServiceRequest`, kept as the API shows it. */
export type FailedServiceRequest = Record<string, unknown>;

export interface IdentityPosture {
  os?: OsReport;
  mac?: MacReport;
  domain?: DomainReport;
  /** One per posture check id, in the order first reported (PROCESS checks match on the check id). */
  processes: ProcessReport[];
  /** The latest report per path (PROCESS_MULTI checks match on the path). */
  processesByPath: Map<string, ProcessReport>;
  endpointStates: Map<string, EndpointState>;
  failedServiceRequests: FailedServiceRequest[];
}

/** A posture response as the contract's discriminator delivers it (the create body's typed shape). */
export type PostureResponse =
  | { typeId: 'OS'; id: string; type: string; version: string; build?: string }
  | { typeId: 'MAC'; id: string; macAddresses: string[] }
  | { typeId: 'DOMAIN'; id: string; domain: string }
  | { typeId: 'PROCESS'; id: string; path?: string; isRunning?: boolean; hash?: string; signerFingerprints?: string[] }
  | { typeId: 'ENDPOINT_STATE'; id: string; woken?: boolean; unlocked?: boolean };

/** Upstream keeps the last 100 refused session requests per identity (`MaxPostureFailures`). */
export const FAILED_SERVICE_REQUESTS_KEPT = 100;
/**
 * Process reports kept per identity, by check id and by path. A client names both freely, and the document is read
 * and written again on every report and session request, so it is bounded: the least recently reported go first.
 * (Real clients report one process per process check; upstream keeps them all in memory.)
 */
export const PROCESS_REPORTS_KEPT = 256;

/** The index of the report updated longest ago (the first of those, on a tie). */
function leastRecentlyReported(reports: readonly ProcessReport[]): number {
  let oldest = 0;
  let oldestAt = reports[0]?.lastUpdatedAt.getTime() ?? 0;
  reports.forEach((report, index) => {
    if (report.lastUpdatedAt.getTime() < oldestAt) [oldest, oldestAt] = [index, report.lastUpdatedAt.getTime()];
  });
  return oldest;
}

/** Lower case with every character that is not a hex digit removed (upstream's CleanHexString). */
export function cleanHex(text: string): string {
  return text.toLowerCase().replace(/[^a-f0-9]/g, '');
}

export function emptyPosture(): IdentityPosture {
  return { processes: [], processesByPath: new Map(), endpointStates: new Map(), failedServiceRequests: [] };
}

/** Applies responses in order (ziti `PostureResponse*.Apply`); ENDPOINT_STATE belongs to the API session. */
export function applyResponses(
  data: IdentityPosture,
  apiSessionId: string,
  responses: readonly PostureResponse[],
  now: Date,
): void {
  for (const response of responses) applyResponse(data, apiSessionId, response, now);
}

export function addFailedServiceRequest(data: IdentityPosture, failure: FailedServiceRequest): void {
  data.failedServiceRequests.push(failure);
  if (data.failedServiceRequests.length > FAILED_SERVICE_REQUESTS_KEPT) data.failedServiceRequests.shift();
}

/** The identity's reported posture, or undefined when its clients reported nothing. */
export async function loadPosture(db: Db, identityId: string): Promise<IdentityPosture | undefined> {
  const text = await reportedPostureText(db, identityId);
  return text === undefined ? undefined : parsePosture(text);
}

/** Reads the identity's posture, lets `change` update it, and stores it again, in the caller's transaction. */
export async function updatePosture(
  tx: Db,
  identityId: string,
  now: Date,
  change: (data: IdentityPosture) => void,
): Promise<void> {
  const data = (await loadPosture(tx, identityId)) ?? emptyPosture();
  change(data);
  await putReportedPosture(tx, identityId, serializePosture(data), formatTimestamp(now));
}

/** Maps as entry lists and times as RFC 3339 text. */
export function serializePosture(data: IdentityPosture): string {
  return JSON.stringify({
    ...data,
    processesByPath: [...data.processesByPath],
    endpointStates: [...data.endpointStates],
  });
}

type StoredPosture = Omit<IdentityPosture, 'processesByPath' | 'endpointStates'> & {
  processesByPath: Array<[string, ProcessReport]>;
  endpointStates: Array<[string, EndpointState]>;
};

export function parsePosture(text: string): IdentityPosture {
  // Written by this module only (serializePosture), in this shape.
  const stored = JSON.parse(text) as StoredPosture;
  const time = (value: Date | undefined) => (value === undefined ? undefined : new Date(value));
  const revived = <T extends Report>(value: T): T => ({ ...value, lastUpdatedAt: new Date(value.lastUpdatedAt) });
  const report = <T extends Report>(value: T | undefined): T | undefined => value && revived(value);
  const state = (value: EndpointState): EndpointState => {
    const woken = time(value.wokenAt);
    const unlocked = time(value.unlockedAt);
    return {
      lastUpdatedAt: new Date(value.lastUpdatedAt),
      ...(woken ? { wokenAt: woken } : {}),
      ...(unlocked ? { unlockedAt: unlocked } : {}),
    };
  };
  const os = report(stored.os);
  const mac = report(stored.mac);
  const domain = report(stored.domain);
  return {
    ...(os ? { os } : {}),
    ...(mac ? { mac } : {}),
    ...(domain ? { domain } : {}),
    processes: stored.processes.map(revived),
    processesByPath: new Map(stored.processesByPath.map(([path, entry]) => [path, revived(entry)])),
    endpointStates: new Map(stored.endpointStates.map(([id, value]) => [id, state(value)])),
    failedServiceRequests: stored.failedServiceRequests,
  };
}

function applyResponse(data: IdentityPosture, apiSessionId: string, response: PostureResponse, now: Date): void {
  const reported = { postureCheckId: response.id, lastUpdatedAt: now };
  switch (response.typeId) {
    case 'OS':
      data.os = { ...reported, type: response.type, version: response.version, build: response.build ?? '' };
      return;
    case 'MAC':
      data.mac = { ...reported, addresses: response.macAddresses.map(cleanHex) };
      return;
    case 'DOMAIN':
      data.domain = { ...reported, domain: response.domain };
      return;
    case 'PROCESS': {
      const process: ProcessReport = {
        ...reported,
        path: response.path ?? '',
        isRunning: response.isRunning === true,
        hash: cleanHex(response.hash ?? ''),
        signerFingerprints: (response.signerFingerprints ?? []).map(cleanHex),
      };
      const index = data.processes.findIndex((known) => known.postureCheckId === process.postureCheckId);
      if (index === -1) data.processes.push(process);
      else data.processes[index] = process;
      if (data.processes.length > PROCESS_REPORTS_KEPT) data.processes.splice(leastRecentlyReported(data.processes), 1);
      if (process.path !== '') {
        // Deleted first, so the map's order stays that of the last report.
        data.processesByPath.delete(process.path);
        data.processesByPath.set(process.path, process);
        if (data.processesByPath.size > PROCESS_REPORTS_KEPT) deleteOldest(data.processesByPath);
      }
      return;
    }
    case 'ENDPOINT_STATE': {
      const state = data.endpointStates.get(apiSessionId) ?? { lastUpdatedAt: now };
      if (response.woken === true) state.wokenAt = now;
      if (response.unlocked === true) state.unlockedAt = now;
      state.lastUpdatedAt = now;
      data.endpointStates.set(apiSessionId, state);
    }
  }
}
