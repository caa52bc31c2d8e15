// A caught value read as an Error: `catch` and promise rejections hand over `unknown`.

/** The value itself when it is an Error; anything else (a throw of a non-Error) as an Error saying what it was. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

export function errorMessage(error: unknown): string {
  return asError(error).message;
}
