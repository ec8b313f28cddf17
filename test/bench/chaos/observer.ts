/*
 * Preloaded into the product by bench:chaos (`node --import tsx --import <this file> app/main.ts`)
 * when CHAOS_JOURNAL is set. It changes nothing the product does: it writes one JSON line per
 * acknowledgement to an append-only journal, synchronously (writeSync on an O_APPEND file), so
 * a line is in the kernel before the party that got the answer goes on and survives the kill -9
 * that may follow a moment later:
 *
 * - `d`: a webhook delivery the sandbox POSTed (global fetch, X-GitHub-Delivery set) and the
 *   answer it got: what "the sandbox recorded as acknowledged" means (a 2xx), before the sandbox
 *   itself marks it delivered. With the delivery's event, action, pull request, comment id and
 *   the latest `*_at` timestamp of its body (sandbox time at the event: a clock sample).
 * - `w`: a write (any method but GET/HEAD) the sandbox's REST API answered, when the answer was
 *   handed to the socket: method, path, status and a few fields of the answer (number, id, sha,
 *   state, merged, author, head, ref). The sandbox acknowledged it: it must survive a crash.
 * - `h`: the app's answer to a webhook delivery (its own acknowledgement), by delivery id.
 * - `c`: the sandbox clock's readings: the first of the process, the latest every 50 ms, any
 *   that is below an earlier one (the clock is wrapped, its value returned unchanged).
 *
 * Both servers live in this process: the app's listens on PORT, anything else is the sandbox.
 */
import { openSync, writeSync } from 'node:fs';
import http from 'node:http';

const journalPath = process.env['CHAOS_JOURNAL'];

if (journalPath) {
  const fd = openSync(journalPath, 'a');
  const write = (record: object) => {
    try {
      writeSync(fd, `${JSON.stringify(record)}\n`);
    } catch {
      // The journal is the bench's, never the product's problem.
    }
  };
  const appPort = Number(process.env['PORT'] ?? '0');
  write({ k: 'boot', pid: process.pid, wall: Date.now() });

  /** The latest ISO timestamp of `*_at` keys (not expires_at): the sandbox's time when it rendered the body. */
  const latestAt = (value: unknown): number | null => {
    let latest: number | null = null;
    const visit = (node: unknown, depth: number) => {
      if (depth > 8 || node === null || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        for (const item of node) visit(item, depth + 1);
        return;
      }
      for (const [key, child] of Object.entries(node as Record<string, unknown>)) {
        if (typeof child === 'string' && key.endsWith('_at') && key !== 'expires_at') {
          const ms = Date.parse(child);
          if (Number.isFinite(ms) && (latest === null || ms > latest)) latest = ms;
        } else if (typeof child === 'object') visit(child, depth + 1);
      }
    };
    visit(value, 0);
    return latest;
  };

  const parse = (text: string): Record<string, unknown> | null => {
    try {
      const value = JSON.parse(text) as unknown;
      return value !== null && typeof value === 'object' && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : null;
    } catch {
      return null;
    }
  };
  const field = (object: unknown, ...path: string[]): unknown => {
    let node = object;
    for (const key of path) {
      if (node === null || typeof node !== 'object') return undefined;
      node = (node as Record<string, unknown>)[key];
    }
    return node;
  };

  // 1. Webhook deliveries: the sandbox sends them with the global fetch.
  const originalFetch = globalThis.fetch;
  globalThis.fetch = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const headers = init?.headers;
    const id =
      headers && !Array.isArray(headers) && !(headers instanceof Headers)
        ? (headers as Record<string, string>)['x-github-delivery']
        : undefined;
    if (id === undefined) return originalFetch(input, init);
    let response: Response;
    try {
      response = await originalFetch(input, init);
    } catch (error) {
      write({ k: 'd', id, status: null, error: (error as Error).message, wall: Date.now() });
      throw error;
    }
    const body = typeof init?.body === 'string' ? parse(init.body) : null;
    const event = (headers as Record<string, string>)['x-github-event'];
    write({
      k: 'd',
      id,
      event,
      action: field(body, 'action') ?? null,
      status: response.status,
      wall: Date.now(),
      at: latestAt(body),
      pr: field(body, 'pull_request', 'number') ?? field(body, 'issue', 'number') ?? null,
      comment: event === 'issue_comment' ? (field(body, 'comment', 'id') ?? null) : null,
      app: field(body, 'check_run', 'app', 'slug') ?? null,
    });
    return response;
  };

  // 3. The sandbox clock's readings (ScaledClock.now(), what the sandbox and the app read from
  // it): the first of this process, then the latest at most every 50 ms, and any reading below
  // an earlier one. Unpatched, with a note, if the clock's module is not where it was.
  try {
    const clockModule = (await import(new URL('../../../app/sandbox/clock.ts', import.meta.url).href)) as {
      ScaledClock?: { prototype: { now(): number } };
    };
    const prototype = clockModule.ScaledClock?.prototype;
    if (!prototype) throw new Error('no ScaledClock in app/sandbox/clock.ts');
    const originalNow = prototype.now;
    let latest = Number.NEGATIVE_INFINITY;
    let lastWrite = 0;
    prototype.now = function (this: unknown) {
      const value = originalNow.call(this);
      const wall = Date.now();
      if (latest === Number.NEGATIVE_INFINITY) {
        write({ k: 'c', at: value, first: true, wall });
        lastWrite = wall;
      } else if (value < latest) {
        write({ k: 'c', at: value, back: latest - value, wall });
      }
      if (value > latest) latest = value;
      if (wall - lastWrite >= 50) {
        write({ k: 'c', at: latest, wall });
        lastWrite = wall;
      }
      return value;
    };
  } catch (error) {
    write({ k: 'note', what: `clock readings not journaled: ${(error as Error).message}`, wall: Date.now() });
  }

  // 2. Answers of both HTTP servers (the sandbox's REST API, the app's webhook endpoint).
  const originalEmit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === 'request') {
      const [request, response] = args as [http.IncomingMessage, http.ServerResponse];
      const method = request.method ?? 'GET';
      const port = request.socket.localPort ?? 0;
      const isApp = port === appPort;
      if (method !== 'GET' && method !== 'HEAD') observe(request, response, method, isApp);
    }
    return (originalEmit as (this: http.Server, event: string | symbol, ...rest: unknown[]) => boolean).call(
      this,
      event,
      ...args,
    );
  } as typeof originalEmit;

  const observe = (
    request: http.IncomingMessage,
    response: http.ServerResponse,
    method: string,
    isApp: boolean,
  ) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const keep = (chunk: unknown) => {
      if (isApp || size > 256 * 1024) return;
      if (typeof chunk === 'string') chunk = Buffer.from(chunk);
      if (chunk instanceof Uint8Array) {
        chunks.push(Buffer.from(chunk));
        size += chunk.length;
      }
    };
    const originalWrite = response.write;
    const originalEnd = response.end;
    response.write = function (this: http.ServerResponse, chunk: unknown, ...rest: unknown[]) {
      keep(chunk);
      return (originalWrite as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof response.write;
    response.end = function (this: http.ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      if (typeof chunk !== 'function') keep(chunk);
      return (originalEnd as (...a: unknown[]) => http.ServerResponse).call(this, chunk, ...rest);
    } as typeof response.end;
    response.once('finish', () => {
      const status = response.statusCode;
      if (isApp) {
        const id = request.headers['x-github-delivery'];
        if (typeof id === 'string') write({ k: 'h', id, status, wall: Date.now() });
        return;
      }
      const body = parse(Buffer.concat(chunks).toString('utf8'));
      write({
        k: 'w',
        m: method,
        u: request.url,
        s: status,
        wall: Date.now(),
        at: latestAt(body),
        b:
          body === null
            ? null
            : {
                number: field(body, 'number'),
                id: field(body, 'id'),
                sha: field(body, 'sha'),
                merged: field(body, 'merged'),
                state: field(body, 'state'),
                user: field(body, 'user', 'login'),
                head: field(body, 'head', 'ref'),
                headSha: field(body, 'head', 'sha') ?? field(body, 'head_sha'),
                ref: field(body, 'ref'),
                object: field(body, 'object', 'sha'),
                draft: field(body, 'draft'),
                name: field(body, 'name'),
                conclusion: field(body, 'conclusion'),
              },
      });
    });
  };
}
