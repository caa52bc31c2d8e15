// A router accepting a link asks the controller whether the dialling router is who it says (VerifyRouter 1036, upstream
// v1.1.8 handler_ctrl/verify_router.go, Network.VerifyRouter): the router must exist, be enrolled, and one of the
// certificate fingerprints the link presented must be its own. The answer is a channel Result (success or failure
// with the reason); without it the accepting router times out and faults every link.
/** The router's enrolled certificate fingerprint; undefined when no such router, null when not enrolled. */
export type FingerprintOf = (routerId: string) => Promise<string | null | undefined>;

/** The reason the router is not who it says, or undefined when it is. */
export async function verifyRouter(
  fingerprintOf: FingerprintOf,
  routerId: string,
  fingerprints: readonly string[],
): Promise<string | undefined> {
  const fingerprint = await fingerprintOf(routerId);
  if (fingerprint === undefined) return `router with id ${routerId} not found`;
  if (fingerprint === null) return `invalid router ${routerId}, not yet enrolled`;
  return fingerprints.includes(fingerprint) ? undefined : `could not verify fingerprint for router ${routerId}`;
}
