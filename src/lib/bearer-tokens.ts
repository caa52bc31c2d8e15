// Bearer tokens from raw request headers: a request may carry several `Authorization` headers (a primary and a
// secondary JWT), and Node keeps only the first of them in `headers`.

/** Upstream tries at most two `Authorization: Bearer` values (ziti MaxCandidateJwtProcessing). */
export const MAX_BEARER_TOKENS = 2;

/** The tokens of the first `Authorization: Bearer …` headers, in order, at most `MAX_BEARER_TOKENS` of them. */
export function bearerTokensOf(rawHeaders: readonly string[]): string[] {
  const tokens: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length && tokens.length < MAX_BEARER_TOKENS; i += 2) {
    const [name = '', value = ''] = rawHeaders.slice(i, i + 2); // both present: i + 1 is inside the list
    if (name.toLowerCase() !== 'authorization' || !value.startsWith('Bearer ')) continue;
    const token = value.slice('Bearer '.length).trim();
    if (token) tokens.push(token);
  }
  return tokens;
}
