import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { UnverifiedBodyBudget } from './unverified-body-budget.ts';

export type SignedBodyOutcome =
  /** The body's HMAC matches the signature: these are the bytes GitHub sent. */
  | { kind: 'verified'; body: Buffer }
  | { kind: 'mismatch' }
  /** Over `maxBytes`, whatever Content-Length said (a chunked body declares none). */
  | { kind: 'too_large' }
  /** The unverified bodies in flight hold the whole budget: no room for this one. */
  | { kind: 'over_budget' }
  | { kind: 'timeout' }
  /** The sender went away: there is nobody to answer. */
  | { kind: 'aborted' };

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/** `sha256=<64 hex digits>` (X-Hub-Signature-256) as the 32 bytes of the digest; null if malformed. */
export function parseSignature(header: string): Buffer | null {
  const hex = SIGNATURE.exec(header)?.[1];
  return hex === undefined ? null : Buffer.from(hex, 'hex');
}

/**
 * Reads a webhook body, hashing it (HMAC-SHA256 with the webhook secret) chunk by chunk as it
 * arrives, and hands it over only once the digest matches `signature`. Until then the chunks stay
 * Buffers counted against `budget` (never one string of the whole), so a forged or unsigned
 * upload costs at most the budget, and the first byte past `maxBytes` or past the budget ends
 * it. On any outcome but `verified` and `aborted` the stream is left paused, unread: the caller
 * answers and closes the connection.
 */
export function readSignedBody(
  stream: Readable,
  params: {
    secret: string;
    signature: Buffer;
    maxBytes: number;
    budget: UnverifiedBodyBudget;
    /** From the first byte asked for to the last received. */
    timeoutMs: number;
  },
): Promise<SignedBodyOutcome> {
  const { budget } = params;
  return new Promise((resolve) => {
    const hmac = createHmac('sha256', params.secret);
    let chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    const finish = (outcome: SignedBodyOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
      if (outcome.kind !== 'verified' && outcome.kind !== 'aborted') stream.pause();
      budget.give(bytes);
      chunks = [];
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      if (bytes + chunk.length > params.maxBytes) return finish({ kind: 'too_large' });
      if (!budget.take(chunk.length)) return finish({ kind: 'over_budget' });
      bytes += chunk.length;
      hmac.update(chunk);
      chunks.push(chunk);
    };
    const onEnd = () => {
      if (!timingSafeEqual(hmac.digest(), params.signature)) return finish({ kind: 'mismatch' });
      finish({ kind: 'verified', body: Buffer.concat(chunks, bytes) });
    };
    const onGone = () => finish({ kind: 'aborted' });
    const timer = setTimeout(() => finish({ kind: 'timeout' }), params.timeoutMs);
    stream.on('data', onData).on('end', onEnd).on('error', onGone).on('close', onGone);
  });
}
