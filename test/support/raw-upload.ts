import { type ClientRequest, type IncomingHttpHeaders, request } from 'node:http';

/*
 * An HTTP POST whose body the caller controls byte by byte, for the webhook endpoint's door: a
 * declared Content-Length or chunked encoding, a body sent in pieces, held back or never ended.
 * The answer is taken as soon as it comes, even while the body is still being sent (a server that
 * refuses early then closes the connection, and the rest of the upload fails: not an error here).
 */

export interface UploadAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The answer's body, parsed (the endpoint answers JSON). */
  body: { detail?: string; status?: string; delivery?: string } | null;
}

export interface Upload {
  headers: Record<string, string>;
  /** Declared Content-Length; without one the body is sent chunked. */
  contentLength?: number;
  /** The body, in the order sent, each piece once the previous one is flushed; it ends after the last. */
  pieces: Iterable<Buffer> | AsyncIterable<Buffer>;
}

export interface UploadInFlight {
  /** The answer, or why there was none (the connection failed before any). */
  answer: Promise<UploadAnswer | { error: string }>;
  /** Gives up the upload: the connection is closed. */
  abort(): void;
}

export function startUpload(url: string, upload: Upload): UploadInFlight {
  const headers: Record<string, string> = { ...upload.headers };
  if (upload.contentLength !== undefined) headers['content-length'] = String(upload.contentLength);
  const req = request(url, { method: 'POST', headers, agent: false });
  let answered = false;
  const answer = new Promise<UploadAnswer | { error: string }>((resolve) => {
    req.on('response', (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: text === '' ? null : JSON.parse(text),
        });
      });
      response.on('error', (error) => resolve({ error: error.message }));
    });
    req.on('error', (error) => {
      if (!answered) resolve({ error: error.message });
    });
  });
  // Node holds the headers back until the first piece of body: they go now, body or not.
  req.flushHeaders();
  void (async () => {
    for await (const piece of upload.pieces) {
      if (req.destroyed || answered) return;
      if (!req.write(piece)) await flushed(req);
    }
    if (!req.destroyed && !answered) req.end();
  })();
  return { answer, abort: () => req.destroy() };
}

/** Until the request can take more body, or is closed. */
function flushed(req: ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off('drain', done).off('close', done);
      resolve();
    };
    req.on('drain', done).on('close', done);
  });
}

/** `count` pieces of `bytes` bytes each (one buffer, sent again and again). */
export function repeatedPieces(count: number, bytes: number, fill = 0x61): Buffer[] {
  const piece = Buffer.alloc(bytes, fill);
  return Array.from({ length: count }, () => piece);
}

/** These pieces, then a body that never ends (the connection stays open until aborted). */
export async function* heldOpen(pieces: Iterable<Buffer> = []): AsyncIterable<Buffer> {
  yield* pieces;
  await new Promise<void>(() => {});
}
