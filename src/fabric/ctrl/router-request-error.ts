// A router's request refused: what the router is told. On lines answering edge errors (20002) `code` goes in header
// 1014 (sdk-golang edge error codes, edge-requests.ts EdgeErrorCode); on lines answering a channel Result, the message
// is its body.

/** sdk-golang's edge error code for an internal error, also the default of a refusal without a better one. */
export const INTERNAL_EDGE_ERROR = 1;

export class RouterRequestError extends Error {
  constructor(
    message: string,
    readonly code: number = INTERNAL_EDGE_ERROR,
    /** Upstream's text code, on lines answering an edge_ctrl_pb.Error (enrollment verification). */
    readonly textCode?: string,
  ) {
    super(message);
    this.name = 'RouterRequestError';
  }
}
