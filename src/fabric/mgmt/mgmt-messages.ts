// How a line of the management-channel table (mgmt/mgmt-table.ts) is served, as upstream's handler_mgmt binds each
// request in bind.go: one wrapper decodes the body, runs the handler, sends its answer, and answers a refusal or a
// failure in the form its line names (each request type has its own failure answer upstream: a Result for the
// streams, InspectResponse{success false} for inspect, a Validate*Response for the validations), so the CLI is never
// left to its timeout. A content type no line serves is answered with a failed Result and warned about once.
import type { Message } from '../channel/message.js';
import { resultMessage, type ControlChannel, type FabricLogger, type Outgoing } from '../ctrl/router-channel.js';

/**
 * What a handler answers: the reply, or the reply and work that must follow it (the validations stream their details
 * only after the CLI has read how many to expect).
 */
export type MgmtAnswer = Outgoing | { reply: Outgoing; after: () => Promise<void> } | void;

/** One request from one management channel, decoded. */
export interface MgmtRequest<T> {
  channel: MgmtChannel;
  message: Message;
  request: T;
}

/** The management channel as its handlers see it: a control channel that tells when it closes. */
export interface MgmtChannel extends ControlChannel {
  readonly closed: Promise<void>;
  readonly isClosed: boolean;
}

export interface MgmtMessageSpec<T> {
  contentType: number;
  /** Upstream's name of the request, for logs. */
  name: string;
  /** Throws when the body is malformed; the CLI is told with `refuse`. */
  decode(message: Message): T;
  /** The answer to send, if any. Throw a MgmtRequestError to refuse with its message. */
  handle(from: MgmtRequest<T>): MgmtAnswer | Promise<MgmtAnswer>;
  /** The answer upstream gives this request when it fails. */
  refuse(reason: string): Outgoing;
}

/** A refusal the CLI is told in its line's form (no error log: the request was wrong, not the controller). */
export class MgmtRequestError extends Error {
  override name = 'MgmtRequestError';
}

export interface MgmtMessageLine {
  readonly contentType: number;
  readonly name: string;
  serve(channel: MgmtChannel, message: Message): Promise<MgmtAnswer>;
  refuse(reason: string): Outgoing;
}

export function mgmtLine<T>(spec: MgmtMessageSpec<T>): MgmtMessageLine {
  return {
    contentType: spec.contentType,
    name: spec.name,
    refuse: (reason) => spec.refuse(reason),
    async serve(channel, message) {
      let request: T;
      try {
        request = spec.decode(message);
      } catch (error) {
        throw new MgmtRequestError(error instanceof Error ? error.message : String(error));
      }
      return spec.handle({ channel, message, request });
    },
  };
}

/** Unknown content types warned about per connection. */
const MAX_WARNED_TYPES = 16;

/** The table, checked once: a content type bound twice fails at start. */
export class MgmtMessages {
  readonly #lines = new Map<number, MgmtMessageLine>();
  readonly #logger: FabricLogger;

  constructor(lines: readonly MgmtMessageLine[], logger: FabricLogger) {
    this.#logger = logger;
    for (const entry of lines) {
      const bound = this.#lines.get(entry.contentType);
      if (bound) throw new Error(`mgmt message ${entry.contentType} bound twice (${bound.name} and ${entry.name})`);
      this.#lines.set(entry.contentType, entry);
    }
  }

  /** Serves every line on a management channel (before it reads its first message). */
  bind(channel: MgmtChannel, label: string): void {
    for (const entry of this.#lines.values())
      channel.handle(entry.contentType, (message) => this.#serve(entry, channel, label, message));
    const warned = new Set<number>();
    channel.handleOthers((message) => {
      if (!warned.has(message.contentType) && warned.size < MAX_WARNED_TYPES) {
        warned.add(message.contentType);
        this.#logger.warn({ channel: label, contentType: message.contentType }, 'mgmt message not supported: answered');
      }
      channel.reply(message, resultMessage(false, `unsupported content type ${message.contentType}`));
    });
  }

  async #serve(entry: MgmtMessageLine, channel: MgmtChannel, label: string, message: Message): Promise<void> {
    let answer: MgmtAnswer;
    try {
      answer = await entry.serve(channel, message);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const fields = { channel: label, contentType: entry.contentType, message: entry.name };
      if (error instanceof MgmtRequestError) this.#logger.info({ ...fields, reason }, 'mgmt request refused');
      else this.#logger.error({ ...fields, err: error }, 'mgmt message handler failed');
      answer = entry.refuse(reason);
    }
    if (!answer || channel.isClosed) return;
    if (!('reply' in answer)) {
      channel.reply(message, answer);
      return;
    }
    channel.reply(message, answer.reply);
    try {
      await answer.after();
    } catch (error) {
      this.#logger.error({ channel: label, message: entry.name, err: error }, 'mgmt request failed after its reply');
    }
  }
}
