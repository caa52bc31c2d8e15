// A control channel without a socket, for circuit and terminator tests: messages the controller sends are kept,
// requests are answered by the test's responder, and router messages are delivered to the registered handlers.
import type { Message } from '../../src/fabric/channel/message.js';
import { Header } from '../../src/fabric/channel/message.js';
import { encodeI32 } from '../../src/fabric/channel/header-codecs.js';
import type { ControlChannel } from '../../src/fabric/ctrl/router-channel.js';

type Outgoing = Omit<Message, 'sequence'>;

export class FakeChannel implements ControlChannel {
  readonly sent: Outgoing[] = [];
  readonly requests: Outgoing[] = [];
  readonly replies: { to: Message; message: Outgoing }[] = [];
  closedWith: string | undefined;
  readonly #handlers = new Map<number, (message: Message) => void | Promise<void>>();
  #others: ((message: Message) => void) | undefined;
  #sequence = 0;

  /** Answers requests; a rejection stands for a request that timed out. */
  constructor(
    public responder: (request: Outgoing, timeoutMs: number) => Promise<Outgoing> = () =>
      Promise.reject(new Error('no reply')),
  ) {}

  send(message: Outgoing): void {
    this.sent.push(message);
  }

  async request(message: Outgoing, timeoutMs: number): Promise<Message> {
    this.requests.push(message);
    const sequence = ++this.#sequence;
    const reply = await this.responder(message, timeoutMs);
    return {
      ...reply,
      sequence: 1000 + sequence,
      headers: new Map([...reply.headers, [Header.replyFor, encodeI32(sequence)]]),
    };
  }

  reply(to: Message, message: Outgoing): void {
    this.replies.push({ to, message });
  }

  handle(contentType: number, handler: (message: Message) => void | Promise<void>): void {
    if (this.#handlers.has(contentType)) throw new Error(`content type ${contentType} is bound twice`);
    this.#handlers.set(contentType, handler);
  }

  handleOthers(handler: (message: Message) => void): void {
    this.#others = handler;
  }

  close(reason: string): void {
    this.closedWith = reason;
  }

  /** Delivers a router's message and waits for its handler; answers the reply it caused, if any. */
  async deliver(message: Outgoing): Promise<Outgoing | undefined> {
    const handler = this.#handlers.get(message.contentType) ?? this.#others;
    if (!handler) throw new Error(`no handler for content type ${message.contentType}`);
    const delivered = { ...message, sequence: ++this.#sequence };
    await handler(delivered);
    return this.replies.find((entry) => entry.to === delivered)?.message;
  }
}
