import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** Who may read /metrics where it is served (docs/operations.md, "Who may read /metrics"). */
export type MetricsAccess =
  /** `Authorization: Bearer <token>` required (TRAINYARD_METRICS_TOKEN). */
  | { kind: 'token'; token: string }
  /** Clients on this machine only (the default on the API's port: metrics name private repositories). */
  | { kind: 'loopback' }
  /** Anyone who reaches the port (a metrics port of its own, without a token). */
  | { kind: 'open' };

export type AccessDecision = { allowed: true } | { allowed: false; status: 401 | 403; detail: string };

/**
 * Whether a request may read the metrics. `clientIp` is the client's address as Fastify gives it
 * (`request.ip`: the forwarded client's behind a trusted proxy, TRAINYARD_TRUST_PROXY).
 */
export function decideMetricsAccess(
  access: MetricsAccess,
  request: { authorization: string | undefined; clientIp: string },
): AccessDecision {
  if (access.kind === 'open') return { allowed: true };
  if (access.kind === 'token') {
    const given = /^Bearer\s+(\S+)\s*$/i.exec(request.authorization ?? '')?.[1];
    if (given !== undefined && sameSecret(given, access.token)) return { allowed: true };
    return {
      allowed: false,
      status: 401,
      detail: 'the metrics need the token of TRAINYARD_METRICS_TOKEN: Authorization: Bearer <token>',
    };
  }
  if (isLoopback(request.clientIp)) return { allowed: true };
  return {
    allowed: false,
    status: 403,
    detail:
      'the metrics are served to this machine only; set TRAINYARD_METRICS_TOKEN (a bearer token) or TRAINYARD_METRICS_PORT (a port of their own) to read them from elsewhere',
  };
}

/** Compared in constant time, over digests so that the lengths do not show either. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export function isLoopback(address: string): boolean {
  const ip = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  if (isIP(ip) === 4) return ip.startsWith('127.');
  return ip === '::1';
}
