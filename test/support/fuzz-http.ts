import { connect } from 'node:net';

/**
 * One HTTP/1.1 request as bytes on the wire. Written on a raw socket, not through http or
 * undici: both refuse what the fuzzer must send (raw bytes ≥ 0x80 or NUL in the target, a
 * bad Host, a broken request line, header and body lengths that disagree).
 */
export interface WireRequest {
  method: string;
  /** The request-target, written as latin1: each char is one byte (raw 0x80–0xFF allowed). */
  target: string;
  /** Headers in order, written verbatim (latin1). */
  headers: [string, string][];
  /** Host header: the server's address when undefined; null leaves it out. */
  host?: string | null;
  body?: Buffer;
  /** A whole malformed head (request line and headers), sent instead of the fields above; `{host}` in it becomes the server's address. */
  rawHead?: Buffer;
}

export type WireAnswer =
  | { kind: 'answer'; status: number; headers: Record<string, string[]>; body: Buffer; ms: number }
  | { kind: 'timeout'; ms: number }
  | { kind: 'no-answer'; ms: number; error: string };

const hasHeader = (headers: [string, string][], name: string) =>
  headers.some(([n]) => n.toLowerCase() === name);

/** The bytes of a request; `Connection: close` unless the request says otherwise (one socket each). */
export function encodeRequest(request: WireRequest, authority: string): Buffer {
  const body = request.body;
  if (request.rawHead) {
    const head = Buffer.from(request.rawHead.toString('latin1').replaceAll('{host}', authority), 'latin1');
    return body ? Buffer.concat([head, body]) : head;
  }
  const lines = [`${request.method} ${request.target} HTTP/1.1`];
  const host = request.host === undefined ? authority : request.host;
  if (host !== null) lines.push(`Host: ${host}`);
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (!hasHeader(request.headers, 'connection')) lines.push('Connection: close');
  if (
    body &&
    !hasHeader(request.headers, 'content-length') &&
    !hasHeader(request.headers, 'transfer-encoding')
  )
    lines.push(`Content-Length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return body ? Buffer.concat([head, body]) : head;
}

function decodeChunked(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = Number.parseInt(data.subarray(at, eol).toString('latin1').split(';')[0]!, 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Parses the first response in `data`, or null when its head is incomplete. */
export function parseResponse(data: Buffer): Omit<Extract<WireAnswer, { kind: 'answer' }>, 'ms'> | null {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1];
  if (!status) return null;
  const headers: Record<string, string[]> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] = [...(headers[name] ?? []), line.slice(colon + 1).trim()];
  }
  const rest = data.subarray(end + 4);
  const length = headers['content-length']?.[0];
  const body = /chunked/i.test(headers['transfer-encoding']?.[0] ?? '')
    ? decodeChunked(rest)
    : length !== undefined
      ? rest.subarray(0, Number(length))
      : rest;
  return { kind: 'answer', status: Number(status), headers, body };
}

/** Whether `data` holds a whole response (a server may keep the connection open after it). */
function isComplete(data: Buffer, headRequest: boolean): boolean {
  const parsed = parseResponse(data);
  if (!parsed) return false;
  if (headRequest || parsed.status === 204 || parsed.status === 304) return true;
  const rest = data.subarray(data.indexOf('\r\n\r\n') + 4);
  if (/chunked/i.test(parsed.headers['transfer-encoding']?.[0] ?? '')) {
    return rest.subarray(-5).toString('latin1') === '0\r\n\r\n';
  }
  const length = parsed.headers['content-length']?.[0];
  return length !== undefined && rest.length >= Number(length);
}

/**
 * Sends one request on a fresh loopback connection and reads one response: until it is
 * complete, or the server closes or resets the connection (an answer already read still
 * counts), within `timeoutMs`.
 */
export function sendRequest(url: string, request: WireRequest, timeoutMs: number): Promise<WireAnswer> {
  const { hostname, port, host } = new URL(url);
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = connect({ host: hostname, port: Number(port) });
    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseResponse(Buffer.concat(chunks));
      if (parsed) resolve({ ...parsed, ms: elapsed() });
      else resolve({ kind: 'no-answer', ms: elapsed(), error: error ?? 'closed without an answer' });
    };
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve({ kind: 'timeout', ms: elapsed() });
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (isComplete(Buffer.concat(chunks), request.method === 'HEAD')) finish();
    });
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    // The server may answer (413, 431) and close before the whole request is written.
    socket.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    socket.write(encodeRequest(request, host));
  });
}
