import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';

/*
 * Answers Node's HTTP parser gives before Fastify sees a request (a malformed request line,
 * headers too large, a request that timed out, an Expect header it does not know). They get
 * the documented body, `{"detail": "..."}`, and an X-Request-Id like every other answer, so a
 * client can report them; a socket that can no longer be written is only closed.
 */

const parserStatus: Record<string, { status: number; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, detail: 'the request was not received in time' },
  HPE_HEADER_OVERFLOW: { status: 431, detail: 'the request headers are too large' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, detail: 'the chunk extensions are too large' },
};

function rawAnswer(status: number, detail: string, requestId: string): string {
  const body = JSON.stringify({ detail });
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Fastify's `clientErrorHandler`: Node's parser refused what arrived on `socket`. */
export function answerClientError(
  this: { log: FastifyBaseLogger },
  error: Error & { code?: string },
  socket: Duplex,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const known = error.code ? parserStatus[error.code] : undefined;
  const { status, detail } = known ?? {
    status: 400,
    detail: `the request is not valid HTTP/1.1 (${error.code ?? 'parse error'})`,
  };
  const requestId = randomUUID();
  this.log.debug({ err: error, requestId }, 'client error');
  if (socket.writable) socket.end(rawAnswer(status, detail, requestId));
  else socket.destroy();
}

/** Node's `connect`: a CONNECT request. This server is no proxy; it refuses with the usual body. */
export function refuseConnect(_request: IncomingMessage, socket: Duplex): void {
  if (socket.writable) {
    socket.end(rawAnswer(405, 'CONNECT is not supported: this server is not a proxy', randomUUID()));
  } else socket.destroy();
}

/** Node's `checkExpectation`: an Expect header other than 100-continue. */
export function answerExpectationFailed(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  const body = JSON.stringify({ detail: `unsupported Expect header: only 100-continue is understood` });
  response.writeHead(417, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': randomUUID(),
    connection: 'close',
  });
  response.end(body);
}
