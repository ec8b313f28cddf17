/*
 * What is logged and stored (outbox.last_error) about a failure: its name and message, with
 * anything shaped like a credential blanked out, and never the error object itself (an
 * octokit error carries the request, authorization header included).
 */

const MAX_LENGTH = 1_000;

const secretPatterns: [RegExp, string][] = [
  // GitHub tokens: personal, OAuth, user-to-server, installation, refresh, fine-grained.
  [/\b(?:gh[pousr]_[A-Za-z0-9_]{10,}|github_pat_[A-Za-z0-9_]{10,})/g, '[redacted]'],
  // JSON Web Tokens (the app's own JWT).
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, '[redacted]'],
  // Authorization header values.
  [/\b(bearer|token|basic)\s+[A-Za-z0-9_\-.=+/]{8,}/gi, '$1 [redacted]'],
  // Passwords in URLs.
  [/(\/\/[^/\s:@]+):[^/\s@]+@/g, '$1:[redacted]@'],
];

export function redactSecrets(text: string): string {
  return secretPatterns.reduce(
    (result, [pattern, replacement]) => result.replace(pattern, replacement),
    text,
  );
}

/** `Name: message`, without secrets, at most 1,000 characters. */
export function describeFailure(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : `thrown: ${String(error)}`;
  const clean = redactSecrets(text);
  return clean.length > MAX_LENGTH ? `${clean.slice(0, MAX_LENGTH - 1)}…` : clean;
}
