// What clients report about their device, kept in memory per identity and per API session, as upstream keeps it
// (ziti `model/posture_response_model.go` PostureCache): the controller's restart drops it, and SDKs send it all
// again when they see a new controller instance id.

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

/** Lower case with every character that is not a hex digit removed (upstream's CleanHexString). */
export function cleanHex(text: string): string {
  return text.toLowerCase().replace(/[^a-f0-9]/g, '');
}

function emptyPosture(): IdentityPosture {
  return { processes: [], processesByPath: new Map(), endpointStates: new Map(), failedServiceRequests: [] };
}

export class ReportedPosture {
  readonly #byIdentity = new Map<string, IdentityPosture>();

  of(identityId: string): IdentityPosture | undefined {
    return this.#byIdentity.get(identityId);
  }

  #entry(identityId: string): IdentityPosture {
    let entry = this.#byIdentity.get(identityId);
    if (!entry) this.#byIdentity.set(identityId, (entry = emptyPosture()));
    return entry;
  }

  /** Applies responses in order (ziti `PostureResponse*.Apply`); ENDPOINT_STATE belongs to the API session. */
  record(identityId: string, apiSessionId: string, responses: readonly PostureResponse[], now: Date): void {
    const data = this.#entry(identityId);
    for (const response of responses) applyResponse(data, apiSessionId, response, now);
  }

  recordFailedServiceRequest(identityId: string, failure: FailedServiceRequest): void {
    const failures = this.#entry(identityId).failedServiceRequests;
    failures.push(failure);
    if (failures.length > FAILED_SERVICE_REQUESTS_KEPT) failures.shift();
  }

  identityIds(): string[] {
    return [...this.#byIdentity.keys()];
  }

  forgetIdentity(identityId: string): void {
    this.#byIdentity.delete(identityId);
  }

  /** Drops the per-API-session parts of API sessions that have ended. */
  forgetApiSessions(identityId: string, ended: (apiSessionId: string) => boolean): void {
    const states = this.#byIdentity.get(identityId)?.endpointStates;
    for (const apiSessionId of states?.keys() ?? []) if (ended(apiSessionId)) states!.delete(apiSessionId);
  }
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
      if (process.path !== '') data.processesByPath.set(process.path, process);
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
