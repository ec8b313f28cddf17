import { z } from 'zod';

/*
 * What a failed delivery's error says about trying again. GitHub and the database fail for a
 * while (a 502, a rate limit, a lost connection, a lock timeout): the delivery is retried with
 * back-off. An error of the code or of the payload's shape — a TypeError reading a field that is
 * not there, a schema that does not parse, JSON that is not JSON — fails the same way on every
 * attempt: the delivery is poison, parked at once instead of holding its repository's deliveries
 * back through a dozen attempts.
 */

export function isPoisonFailure(error: unknown): boolean {
  if (error instanceof z.core.$ZodError) return true;
  // fetch reports a network failure as a TypeError with the failure as its cause: that one passes.
  if (error instanceof TypeError) return error.cause === undefined;
  return error instanceof ReferenceError || error instanceof SyntaxError;
}
