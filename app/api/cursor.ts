import { createHash } from 'node:crypto';
import type { EventPageStart } from '../store/events.ts';
import { ValidationError } from './errors.ts';

/**
 * The log's cursor: base64url of a small versioned JSON (docs/api.md, "The event log"). It names
 * a keyset position and a fingerprint of the query it belongs to, so a cursor taken from another
 * repository or another set of filters is refused instead of silently mixing pages.
 */
interface CursorPayload {
  v: 1;
  /** 'b': older than id, 'a': newer than id, 'o': the oldest page. */
  k: 'b' | 'a' | 'o';
  id?: string;
  q: string;
}

const MAX_BIGINT = 9223372036854775807n;

export function queryFingerprint(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 12);
}

export function encodeCursor(
  start: Exclude<EventPageStart, { kind: 'newest' }>,
  fingerprint: string,
): string {
  const payload: CursorPayload =
    start.kind === 'oldest'
      ? { v: 1, k: 'o', q: fingerprint }
      : { v: 1, k: start.kind === 'before' ? 'b' : 'a', id: start.id, q: fingerprint };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

function invalid(msg: string): ValidationError {
  return new ValidationError([{ loc: ['query', 'cursor'], msg, type: 'invalid_cursor' }]);
}

export function decodeCursor(cursor: string, fingerprint: string): EventPageStart {
  let payload: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('not a cursor of this API: take cursors from the Link header');
  }
  const p = payload as Partial<CursorPayload> | null;
  if (typeof p !== 'object' || p === null || p.v !== 1 || typeof p.q !== 'string') {
    throw invalid('not a cursor of this API: take cursors from the Link header');
  }
  if (p.q !== fingerprint)
    throw invalid('this cursor belongs to another query (repository, filters or page size)');
  if (p.k === 'o') return { kind: 'oldest' };
  if (
    (p.k === 'b' || p.k === 'a') &&
    typeof p.id === 'string' &&
    /^[1-9][0-9]{0,18}$/.test(p.id) &&
    BigInt(p.id) <= MAX_BIGINT
  ) {
    return { kind: p.k === 'b' ? 'before' : 'after', id: p.id };
  }
  throw invalid('malformed cursor');
}
