// The corpus's language: a sequence is a function of `Steps`, run once against each controller. Every request it
// sends is recorded as an exchange; ids and secrets it learns get names, so that the two runs' exchanges can be
// paired and compared after those values are replaced by their names.
import type { Peer, WireReply, WireRequest } from './peers.js';
import { sendRequest } from './peers.js';

export interface Sequence {
  name: string;
  run(s: Steps): Promise<void>;
}

export const sequence = (name: string, run: (s: Steps) => Promise<void>): Sequence => ({ name, run });

export type Api = 'management' | 'client' | 'fabric' | 'root';

const prefixes: Record<Api, string> = {
  management: '/edge/management/v1',
  client: '/edge/client/v1',
  fabric: '/fabric/v1',
  root: '',
};

export interface Exchange {
  sequence: string;
  /** `<sequence>: <METHOD> <path with names>`, made unique within the sequence; what the explained file matches. */
  key: string;
  request: WireRequest & { caller: string };
  reply: WireReply;
}

export interface SendOptions {
  /** An object goes as JSON; a string as is (`application/json` unless `contentType` says otherwise). */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
  /** A client certificate for the TLS handshake. */
  cert?: { cert: string; key: string };
}

/** What a run knows: names for values, callers' tokens, what to delete afterwards and the exchanges so far. */
export class RunState {
  readonly names = new Map<string, string>();
  readonly tokens = new Map<string, string>();
  readonly created: string[] = [];
  readonly exchanges: Exchange[] = [];
  private readonly keyCounts = new Map<string, number>();

  constructor(readonly peer: Peer) {}

  /** Gives a value (an id, a token) a name that replaces it wherever it appears. */
  name(value: string, name: string): void {
    if (value.length >= 6 && !this.names.has(value)) this.names.set(value, `<${name}>`);
  }

  /** The text with every named value replaced by its name (longest values first). */
  withNames(text: string): string {
    let named = text;
    for (const [value, name] of [...this.names].sort((a, b) => b[0].length - a[0].length))
      named = named.split(value).join(name);
    return named;
  }

  uniqueKey(key: string): string {
    const count = (this.keyCounts.get(key) ?? 0) + 1;
    this.keyCounts.set(key, count);
    return count === 1 ? key : `${key} #${count}`;
  }
}

export interface Reply extends WireReply {
  /** `json.data`, or undefined. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- sequences read replies of every shape; a wrong guess shows up as a difference
  data: any;
}

export class Steps {
  constructor(
    private readonly state: RunState,
    readonly sequenceName: string,
    private readonly api: Api = 'management',
    private readonly caller: string = 'admin',
  ) {}

  get peer(): Peer {
    return this.state.peer;
  }

  /** The same steps against the client API (`/edge/client/v1`). */
  get client(): Steps {
    return new Steps(this.state, this.sequenceName, 'client', this.caller);
  }

  /** The same steps against the management API. */
  get management(): Steps {
    return new Steps(this.state, this.sequenceName, 'management', this.caller);
  }

  /** The same steps against the fabric API (`/fabric/v1`, with the same session). */
  get fabric(): Steps {
    return new Steps(this.state, this.sequenceName, 'fabric', this.caller);
  }

  /** Paths from the host on (`/version`, `/.well-known/est/cacerts`, `/edge/v1/…`). */
  get root(): Steps {
    return new Steps(this.state, this.sequenceName, 'root', this.caller);
  }

  /** Sends as another caller: `anonymous`, `admin`, or a name given to `login`. */
  as(caller: string): Steps {
    return new Steps(this.state, this.sequenceName, this.api, caller);
  }

  name(value: unknown, name: string): void {
    if (typeof value === 'string') this.state.name(value, name);
  }

  /** Lets asynchronous work settle (upstream removes sessions from an event queue, about every 2 s); no exchange. */
  wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

  get = (path: string, options?: SendOptions) => this.send('GET', path, options);
  post = (path: string, options?: SendOptions) => this.send('POST', path, options);
  put = (path: string, options?: SendOptions) => this.send('PUT', path, options);
  patch = (path: string, options?: SendOptions) => this.send('PATCH', path, options);
  delete = (path: string, options?: SendOptions) => this.send('DELETE', path, options);

  async send(method: string, path: string, options: SendOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    const token = this.state.tokens.get(this.caller);
    if (this.caller !== 'anonymous' && token) headers['zt-session'] ??= token;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= options.contentType ?? 'application/json';
    }
    const request: WireRequest = {
      method,
      path: `${prefixes[this.api]}${path}`,
      headers,
      ...(body === undefined ? {} : { body }),
    };
    if (options.cert) Object.assign(request, options.cert);
    const reply = await sendRequest(this.state.peer, request);
    const key = this.state.uniqueKey(
      `${this.sequenceName}: ${method} ${this.state.withNames(request.path)}${this.caller === 'admin' ? '' : ` as ${this.caller}`}`,
    );
    this.state.exchanges.push({
      sequence: this.sequenceName,
      key,
      request: { ...request, caller: this.caller },
      reply,
    });
    const data = (reply.json as { data?: { id?: unknown } } | undefined)?.data;
    // Whatever a POST created (even where a refusal was expected) is deleted after the sequence.
    if (method === 'POST' && reply.status === 201 && this.api === 'management' && typeof data?.id === 'string') {
      this.state.created.push(`${path.split('?')[0]!}/${data.id}`);
    }
    return { ...reply, data };
  }

  /**
   * POSTs a new entity and names its id. When the controller refuses, a placeholder stands in for the id so the
   * steps that use it still line up between the two runs.
   */
  async create(name: string, path: string, body: unknown, options: SendOptions = {}): Promise<string> {
    const reply = await this.post(path, { ...options, body });
    const id = typeof reply.data?.id === 'string' ? (reply.data.id as string) : `missing-${name}`;
    this.state.name(id, name);
    return id;
  }

  /** Password login at this API; the token and API session are named, the token used for later steps `as(name)`. */
  async login(name: string, username: string, password: string): Promise<Reply> {
    const reply = await this.as('anonymous').post('/authenticate?method=password', { body: { username, password } });
    this.useToken(name, reply.data?.token);
    this.name(reply.data?.id, `${name}-api-session`);
    return reply;
  }

  /** Uses a token learnt elsewhere (a certificate login) for `as(name)`. */
  useToken(name: string, token: unknown): void {
    if (typeof token !== 'string') return;
    this.state.tokens.set(name, token);
    this.state.name(token, `${name}-token`);
  }
}
