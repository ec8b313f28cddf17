import { isIPv6 } from 'node:net';

/*
 * The origin (scheme://host[:port]) that absolute links in answers start with. A configured
 * public URL wins; otherwise the request's Host is used only when it is a well-formed host
 * name or address with a valid port, and the address the request arrived on stands in for
 * anything else (an empty or missing Host, spaces, a port past 65535, …) — never a 500, and
 * never a malformed header copied into a link.
 */

const label = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const hostPattern = new RegExp(
  `^(?:(${label}(?:\\.${label})*\\.?)|\\[([0-9a-f:.]+)\\])(?::(\\d{1,5}))?$`,
  'i',
);

/** Whether a Host header value (`name`, `name:port`, `[v6]:port`) is well formed. */
export function isValidHost(host: string): boolean {
  if (host.length > 255) return false;
  const match = hostPattern.exec(host);
  if (!match) return false;
  if (match[2] !== undefined && !isIPv6(match[2])) return false;
  return match[3] === undefined || Number(match[3]) <= 65_535;
}

export interface RequestLike {
  protocol: string;
  host: string | undefined;
  socket: { localAddress?: string | undefined; localPort?: number | undefined };
}

export function requestOrigin(request: RequestLike, publicUrl?: string): string {
  if (publicUrl) return new URL(publicUrl).origin;
  const protocol = request.protocol === 'https' ? 'https' : 'http';
  if (typeof request.host === 'string' && isValidHost(request.host)) return `${protocol}://${request.host}`;
  const address = request.socket.localAddress ?? '127.0.0.1';
  const host = isIPv6(address) ? `[${address}]` : address;
  return `${protocol}://${host}:${request.socket.localPort ?? 80}`;
}
