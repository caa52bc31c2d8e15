// One-off HTTPS requests from the harness (readiness probes, the admin login, a probe before each scenario).
import https from 'node:https';

export interface HttpsReply {
  status: number;
  body: unknown;
}

export interface HttpsRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
  /** A keep-alive agent, for timing requests without a TLS handshake each; by default one connection per request. */
  agent?: https.Agent;
}

/** The harness only measures; certificate checks would add nothing, so the server's chain is not verified. */
export function httpsRequest(url: string, request: HttpsRequest = {}): Promise<HttpsReply> {
  return new Promise((resolve, reject) => {
    const outgoing = https.request(
      url,
      {
        method: request.method ?? 'GET',
        headers: request.headers,
        rejectUnauthorized: false,
        agent: request.agent ?? false,
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body: parseBody(Buffer.concat(chunks)) }));
        incoming.on('error', reject);
      },
    );
    outgoing.setTimeout(request.timeoutMs ?? 5000, () => outgoing.destroy(new Error(`timeout: ${url}`)));
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

function parseBody(raw: Buffer): unknown {
  const text = raw.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `body.error.code` of an upstream error envelope, if the body is one. */
export function errorCode(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const error = body.error;
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** `body.meta.pagination.totalCount` of a list reply: how many entities the filter matched. */
export function totalCount(body: unknown): number | undefined {
  let value: unknown = body;
  for (const key of ['meta', 'pagination', 'totalCount']) {
    if (typeof value !== 'object' || value === null || !(key in value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return typeof value === 'number' ? value : undefined;
}

/** Logs in through the management API and returns the `zt-session` token. */
export async function loginAdmin(baseUrl: string, username: string, password: string): Promise<string> {
  const token = await loginWithPassword(`${baseUrl}/edge/management/v1`, username, password);
  if (typeof token !== 'string')
    throw new Error(`admin login answered ${token.status}: ${JSON.stringify(token.body).slice(0, 300)}`);
  return token;
}

/** Password login at one API prefix: the `zt-session` token, or the reply that refused it. */
export async function loginWithPassword(
  apiUrl: string,
  username: string,
  password: string,
): Promise<string | HttpsReply> {
  const reply = await httpsRequest(`${apiUrl}/authenticate?method=password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const data =
    typeof reply.body === 'object' && reply.body !== null && 'data' in reply.body ? reply.body.data : undefined;
  const token = typeof data === 'object' && data !== null && 'token' in data ? data.token : undefined;
  return reply.status === 200 && typeof token === 'string' ? token : reply;
}
