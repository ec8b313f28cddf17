import { STATUS_CODES } from 'node:http';
import { Agent, type Dispatcher, interceptors, request } from 'undici';

/**
 * The `fetch` octokit calls, on undici's `request` rather than the WHATWG fetch: no Request,
 * Response, Headers or web streams per call, which cost CPU on every GitHub read a webhook makes
 * (figures in decision 0012). It does what octokit uses of a response (status, url, headers
 * iterated and read, text, arrayBuffer, body) and follows redirects as fetch does (a renamed
 * repository answers 301).
 */
export type OctokitFetch = (url: string, init?: LightRequestInit) => Promise<LightResponse>;

interface LightRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | Uint8Array | null;
  signal?: AbortSignal | null;
  redirect?: 'follow' | 'manual' | 'error';
}

const MAX_REDIRECTIONS = 20;

let shared: { follow: Dispatcher; manual: Agent } | null = null;

/** One connection pool for every octokit of the process (keep-alive, as the global fetch). */
function dispatchers() {
  if (shared === null) {
    const manual = new Agent({ connections: 128 });
    shared = { manual, follow: manual.compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTIONS })) };
  }
  return shared;
}

export const lightFetch: OctokitFetch = async (url, init = {}) => {
  const method = (init.method ?? 'GET').toUpperCase();
  const { follow, manual } = dispatchers();
  const answer = await request(url, {
    method: method as Dispatcher.HttpMethod,
    headers: init.headers,
    body: init.body ?? null,
    signal: init.signal ?? undefined,
    dispatcher: init.redirect === 'manual' || init.redirect === 'error' ? manual : follow,
  });
  if (init.redirect === 'error' && answer.statusCode >= 300 && answer.statusCode < 400) {
    await answer.body.dump();
    throw new TypeError('fetch failed', { cause: new Error(`redirect to ${answer.headers.location}`) });
  }
  // Octokit reads no body of these: free the connection now.
  if (answer.statusCode === 204 || answer.statusCode === 205 || method === 'HEAD') await answer.body.dump();
  return new LightResponse(url, answer.statusCode, answer.headers, answer.body);
};

/** What octokit's fetchWrapper uses of a fetch Response. */
export class LightResponse {
  readonly headers: LightHeaders;
  readonly statusText: string;

  constructor(
    readonly url: string,
    readonly status: number,
    headers: Record<string, string | string[] | undefined>,
    readonly body: Dispatcher.ResponseData['body'],
  ) {
    this.headers = new LightHeaders(headers);
    this.statusText = STATUS_CODES[status] ?? '';
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  text(): Promise<string> {
    return this.body.text();
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.body.arrayBuffer();
  }

  json(): Promise<unknown> {
    return this.body.json();
  }
}

/** Response headers as fetch's Headers gives them to octokit: lower-case names, several values joined by ", ". */
class LightHeaders {
  private readonly values = new Map<string, string>();

  constructor(raw: Record<string, string | string[] | undefined>) {
    for (const name in raw) {
      const value = raw[name];
      if (value !== undefined)
        this.values.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
    }
  }

  get(name: string): string | null {
    return this.values.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.values.has(name.toLowerCase());
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.values.entries();
  }
}
