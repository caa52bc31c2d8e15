// Inspections (upstream controller/network/inspect.go): `POST /fabric/v1/inspections` and the management channel's
// InspectRequest ask the controller and every connected router whose id or name the app regex matches for named
// values. The controller answers for itself (controller-values.ts); a router is asked with InspectRequest (1013) on
// its control channel, wherever in the cluster that channel is held (the messenger reaches routers other processes
// hold). Everything is asked at once and waited for at most `timeoutMs`; what has not come by then is left out, as
// upstream does. A failure is named by its source (`<appId>: <error>`) and makes the whole answer unsuccessful.
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  ContentType as CtrlType,
  InspectRequestSchema,
  InspectResponseSchema,
  type InspectResponse,
} from '../messages/gen/ctrl_pb.js';
import type { RouteMessenger } from '../circuits/reroute.js';
import type { Message } from '../channel/message.js';

export interface InspectValue {
  appId: string;
  name: string;
  value: string;
}

export interface InspectResult {
  success: boolean;
  errors: string[];
  values: InspectValue[];
}

export interface InspectionsOptions {
  /** The controller's id, its app id in answers (upstream network.GetAppId()). */
  appId: string;
  /** The controller's own value of `name` (lower-cased), or undefined when it has none (then nothing is answered). */
  local(name: string): Promise<string | undefined>;
  /** The routers connected to any process of the cluster. */
  connectedRouters(): Promise<readonly { id: string; name: string }[]>;
  messenger: Pick<RouteMessenger, 'request'>;
  /** Upstream waits 10 s. */
  timeoutMs?: number;
}

/** An app regex longer than this is refused (it is compiled and run against every router). */
const MAX_REGEX_LENGTH = 1024;
const DEFAULT_TIMEOUT_MS = 10_000;
const INSPECT_RESPONSE: number = CtrlType.InspectResponseType;

export class Inspections {
  readonly #options: InspectionsOptions;

  constructor(options: InspectionsOptions) {
    this.#options = options;
  }

  async inspect(appRegex: string, requested: readonly string[]): Promise<InspectResult> {
    const { appId } = this.#options;
    const result: InspectResult = { success: true, errors: [], values: [] };
    const regex = compile(appRegex);
    if (typeof regex === 'string') return fail(result, appId, regex);
    const timeoutMs = this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // Each source fills its own slot; the answer is read once, at the end or at the timeout, in the sources' order.
    const slots: InspectResult[] = [];
    const work: Promise<void>[] = [];
    if (regex.test(appId)) work.push(this.#inspectLocal(requested, own(slots)));
    for (const router of await this.#options.connectedRouters())
      if (regex.test(router.id) || regex.test(router.name))
        work.push(this.#inspectRouter(router.id, requested, timeoutMs, own(slots)));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.all(work), timedOut]);
    clearTimeout(timer);
    for (const slot of slots) {
      if (!slot.success) result.success = false;
      result.errors.push(...slot.errors);
      result.values.push(...slot.values);
    }
    return result;
  }

  async #inspectLocal(requested: readonly string[], slot: InspectResult): Promise<void> {
    const { appId } = this.#options;
    for (const name of requested) {
      try {
        const value = await this.#options.local(name.toLowerCase());
        if (value !== undefined) slot.values.push({ appId, name, value });
      } catch (error) {
        fail(slot, appId, error instanceof Error ? error.message : String(error));
      }
    }
  }

  async #inspectRouter(routerId: string, requested: readonly string[], timeoutMs: number, slot: InspectResult) {
    let response: InspectResponse;
    try {
      response = await askRouter(this.#options.messenger, routerId, requested, timeoutMs);
    } catch (error) {
      fail(slot, routerId, error instanceof Error ? error.message : String(error));
      return;
    }
    for (const error of response.errors) fail(slot, routerId, error);
    for (const value of response.values) slot.values.push({ appId: routerId, name: value.name, value: value.value });
  }
}

/** InspectRequest (1013) to one router, wherever it is held; throws when it cannot be asked or answers otherwise. */
export async function askRouter(
  messenger: Pick<RouteMessenger, 'request'>,
  routerId: string,
  requested: readonly string[],
  timeoutMs: number,
): Promise<InspectResponse> {
  const reply: Message = await messenger.request(
    routerId,
    {
      contentType: CtrlType.InspectRequestType,
      headers: new Map(),
      body: toBinary(InspectRequestSchema, create(InspectRequestSchema, { requestedValues: [...requested] })),
    },
    timeoutMs,
  );
  if (reply.contentType !== INSPECT_RESPONSE)
    throw new Error(`unexpected response type ${reply.contentType}, expected ${CtrlType.InspectResponseType}`);
  return fromBinary(InspectResponseSchema, reply.body);
}

function own(slots: InspectResult[]): InspectResult {
  const slot: InspectResult = { success: true, errors: [], values: [] };
  slots.push(slot);
  return slot;
}

function fail(result: InspectResult, source: string, error: string): InspectResult {
  result.success = false;
  result.errors.push(`${source}: ${error}`);
  return result;
}

/**
 * Upstream compiles the regex with Go's regexp and matches anywhere in the id (MatchString); JavaScript's RegExp
 * reads the same simple patterns alike. A leading `(?i)` (Go's case-insensitive flag) becomes the `i` flag.
 */
function compile(appRegex: string): RegExp | string {
  if (appRegex.length > MAX_REGEX_LENGTH) return `app regex longer than ${MAX_REGEX_LENGTH} characters`;
  const insensitive = appRegex.startsWith('(?i)');
  try {
    return new RegExp(insensitive ? appRegex.slice(4) : appRegex, insensitive ? 'i' : '');
  } catch (error) {
    return `error parsing regexp: ${error instanceof Error ? error.message : String(error)}`;
  }
}
