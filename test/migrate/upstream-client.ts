// A small REST client for a controller (upstream's or ours) on loopback: the calls the migration fixtures and the
// migration interop run make. TLS is not verified: the point is what the controller answers, not who it is.
import https from 'node:https';

/** The management lists recorded from upstream and compared with ours after an import. */
export const fixtureLists = [
  '/identities?limit=500',
  '/authenticators?limit=500',
  '/enrollments?limit=500',
  '/edge-routers?limit=500',
  '/transit-routers?limit=500',
  '/services?limit=500',
  '/configs?limit=500',
  '/config-types?limit=500',
  '/service-policies?limit=500',
  '/edge-router-policies?limit=500',
  '/service-edge-router-policies?limit=500',
  '/posture-checks?limit=500',
  '/auth-policies?limit=500',
  '/cas?limit=500',
  '/external-jwt-signers?limit=500',
  '/terminators?limit=500',
] as const;

/** What the recorded fixtures' tests log in and enroll with (record-fixtures.ts writes it as secrets.json). */
export interface RecordedSecrets {
  ids: Record<string, string>;
  password: string;
  mfa: { secret: string; recoveryCodes: string[] };
  certificates: Record<string, { certPem: string; keyPem: string }>;
  pendingJwts: Record<string, string>;
}

export interface Reply {
  status: number;
  text: string;
  json: unknown;
}

export interface UpstreamClient {
  request(method: string, path: string, options?: RequestOptions): Promise<Reply>;
  /** The JSON answer of a call that must succeed (2xx). */
  json(method: string, path: string, token?: string, body?: unknown): Promise<unknown>;
  create(path: string, body: unknown, token: string): Promise<string>;
  login(username: string, password: string): Promise<string>;
  enrollmentToken(admin: string, identityId: string): Promise<string>;
  enrollmentJwt(admin: string, identityId: string): Promise<string>;
  routerJwt(admin: string, collection: 'edge-routers' | 'transit-routers', id: string): Promise<string>;
  enrollOtt(token: string, csrPem: string): Promise<string>;
  enrollUpdb(token: string, password: string): Promise<void>;
}

export interface RequestOptions {
  token?: string;
  body?: string;
  contentType?: string;
  cert?: string;
  key?: string;
}

export function upstreamClient(baseUrl: string): UpstreamClient {
  const request = (method: string, path: string, options: RequestOptions = {}) => send(baseUrl, method, path, options);
  const json = async (method: string, path: string, token?: string, body?: unknown) => {
    const reply = await request(method, path, {
      ...(token ? { token } : {}),
      ...(body === undefined ? {} : { body: JSON.stringify(body), contentType: 'application/json' }),
    });
    if (reply.status >= 300) throw new Error(`${method} ${path} answered ${reply.status}: ${reply.text}`);
    return reply.json;
  };
  const data = (value: unknown) => (value as { data: Record<string, unknown> }).data;
  const enrollment = async (admin: string, identityId: string) => {
    const identity = data(await json('GET', `/edge/management/v1/identities/${identityId}`, admin));
    const methods = identity.enrollment as Record<string, { token: string; jwt: string }>;
    const pending = Object.values(methods)[0];
    if (!pending) throw new Error(`identity ${identityId} has no pending enrollment`);
    return pending;
  };
  return {
    request,
    json,
    async create(path, body, token) {
      return String(data(await json('POST', path, token, body)).id);
    },
    async login(username, password) {
      const reply = data(
        await json('POST', '/edge/client/v1/authenticate?method=password', undefined, { username, password }),
      );
      return String(reply.token);
    },
    enrollmentToken: async (admin, identityId) => (await enrollment(admin, identityId)).token,
    enrollmentJwt: async (admin, identityId) => (await enrollment(admin, identityId)).jwt,
    async routerJwt(admin, collection, id) {
      return String(data(await json('GET', `/edge/management/v1/${collection}/${id}`, admin)).enrollmentJwt);
    },
    async enrollOtt(token, csrPem) {
      const reply = await request('POST', `/edge/client/v1/enroll?method=ott&token=${token}`, {
        body: csrPem,
        contentType: 'application/x-pem-file',
      });
      if (reply.status !== 200) throw new Error(`ott enrollment answered ${reply.status}: ${reply.text}`);
      const cert = (reply.json as { data?: { cert?: string } } | undefined)?.data?.cert;
      return cert ?? reply.text;
    },
    async enrollUpdb(token, password) {
      // v1.1.8 answers 501 on /enroll/updb; its SDKs post to /enroll with the method in the query.
      await json('POST', `/edge/client/v1/enroll?method=updb&token=${token}`, undefined, { password });
    },
  };
}

function send(baseUrl: string, method: string, path: string, options: RequestOptions): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.token) headers['zt-session'] = options.token;
    if (options.contentType) headers['content-type'] = options.contentType;
    // v1.1.8's enroll handler reads no chunked body: always send a length.
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const outgoing = https.request(
      `${baseUrl}${path}`,
      {
        method,
        headers,
        rejectUnauthorized: false,
        agent: false,
        ...(options.cert ? { cert: options.cert, key: options.key } : {}),
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: incoming.statusCode ?? 0, text, json });
        });
      },
    );
    outgoing.setTimeout(30_000, () => outgoing.destroy(new Error(`timeout: ${method} ${path}`)));
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}
