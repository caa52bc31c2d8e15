// How a line of the router-message table (fabric/router-messages.ts) is served on a router's channel, as upstream
// binds each message in handler_ctrl/bind.go: one wrapper decodes the body, runs the handler, sends its answer, and
// answers a refusal or a failure in the form its line names, so no request is left to the router's timeout. A
// refusal (RouterRequestError) is logged at warn with its reason; anything else is upstream's internal error, logged
// once at error with the router and the content type.
import type { Message } from '../channel/message.js';
import { INTERNAL_EDGE_ERROR, RouterRequestError } from './router-request-error.js';
import { circuitFailedMessage, edgeErrorMessage } from '../circuits/circuit-messages.js';
import {
  edgeErrorProtobuf,
  resultMessage,
  type ControlChannel,
  type FabricLogger,
  type Outgoing,
} from './router-channel.js';

/**
 * How a line's refusals and failures are told to the router: a channel Result (success false, the reason as body),
 * an edge error (20002 with its code in header 1014), an edge_ctrl_pb.Error (20002 whose body is the protobuf with
 * upstream's text code: enrollment verification), CircuitFailed (1016, the reason as body: a fabric CircuitRequest),
 * or not at all (a report the router expects no answer to).
 */
export type ErrorAnswer = 'result' | 'edge' | 'edge-pb' | 'circuit' | 'none';

/** One message from one router, decoded. */
export interface RouterMessage<T> {
  routerId: string;
  channel: ControlChannel;
  message: Message;
  request: T;
}

export interface RouterMessageSpec<T> {
  contentType: number;
  /** Upstream's name of the message, for logs. */
  name: string;
  /** Throws when the message is malformed (the router is told so on lines that answer). */
  decode(message: Message): T;
  /** The answer to send, if any. Throw a RouterRequestError to refuse. */
  handle(from: RouterMessage<T>): Outgoing | void | Promise<Outgoing | void>;
  errors: ErrorAnswer;
}

/** A table line with its request type erased (each line decodes its own). */
export interface RouterMessageLine {
  readonly contentType: number;
  readonly name: string;
  readonly errors: ErrorAnswer;
  serve(routerId: string, channel: ControlChannel, message: Message): Promise<Outgoing | void>;
}

/** Unknown content types warned about per connection; past this a router sending noise is answered silently. */
const MAX_WARNED_TYPES = 64;

class UndecodableMessage extends RouterRequestError {
  constructor(message: string) {
    super(message, INTERNAL_EDGE_ERROR, 'COULD_NOT_UNMARSHAL');
  }
}

export function line<T>(spec: RouterMessageSpec<T>): RouterMessageLine {
  return {
    contentType: spec.contentType,
    name: spec.name,
    errors: spec.errors,
    async serve(routerId, channel, message) {
      let request: T;
      try {
        request = spec.decode(message);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new UndecodableMessage(`could not decode ${spec.name}: ${reason}`);
      }
      return spec.handle({ routerId, channel, message, request });
    },
  };
}

/** The table, checked once: a content type bound twice fails at start. */
export class RouterMessages {
  readonly #lines = new Map<number, RouterMessageLine>();
  readonly #logger: FabricLogger;

  constructor(lines: readonly RouterMessageLine[], logger: FabricLogger) {
    this.#logger = logger;
    for (const entry of lines) {
      const bound = this.#lines.get(entry.contentType);
      if (bound) throw new Error(`router message ${entry.contentType} bound twice (${bound.name} and ${entry.name})`);
      this.#lines.set(entry.contentType, entry);
    }
  }

  get contentTypes(): number[] {
    return [...this.#lines.keys()];
  }

  /**
   * Serves every line on a router's channel (before it reads its first message). A message no line serves is
   * answered with a failed Result, so a request does not wait for its timeout, and warned about once per content type
   * for this connection.
   */
  bind(routerId: string, channel: ControlChannel): void {
    for (const entry of this.#lines.values())
      channel.handle(entry.contentType, (message) => this.#serve(entry, routerId, channel, message));
    const warned = new Set<number>();
    channel.handleOthers((message) => {
      if (!warned.has(message.contentType) && warned.size < MAX_WARNED_TYPES) {
        warned.add(message.contentType);
        this.#logger.warn({ routerId, contentType: message.contentType }, 'router message not supported: answered');
      }
      channel.reply(message, resultMessage(false, `unsupported content type ${message.contentType}`));
    });
  }

  async #serve(entry: RouterMessageLine, routerId: string, channel: ControlChannel, message: Message): Promise<void> {
    let answer: Outgoing | void;
    try {
      answer = await entry.serve(routerId, channel, message);
    } catch (error) {
      const fields = { routerId, contentType: entry.contentType, message: entry.name };
      if (error instanceof RouterRequestError) {
        this.#logger.warn({ ...fields, reason: error.message }, 'router request refused');
        answer = errorAnswer(entry.errors, error.message, error.code, error.textCode);
      } else {
        this.#logger.error({ ...fields, err: error }, 'router message handler failed');
        const reason = error instanceof Error ? error.message : String(error);
        answer = errorAnswer(entry.errors, reason, INTERNAL_EDGE_ERROR);
      }
    }
    if (answer) channel.reply(message, answer);
  }
}

function errorAnswer(form: ErrorAnswer, reason: string, edgeCode: number, textCode?: string): Outgoing | undefined {
  if (form === 'edge') return edgeErrorMessage(reason, edgeCode);
  if (form === 'edge-pb') return edgeErrorProtobuf(textCode ?? 'INTERNAL_ERROR', reason);
  if (form === 'result') return resultMessage(false, reason);
  if (form === 'circuit') return circuitFailedMessage(reason);
  return undefined;
}
