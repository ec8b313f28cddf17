import type { ProbotOctokit } from 'probot';

/** octokit.ts's GithubOctokit, named here: octokit.ts installs this hook, so importing it would make a cycle. */
type GithubOctokit = InstanceType<typeof ProbotOctokit>;

/**
 * Success bodies parsed with the runtime's JSON.parse. @octokit/request 10 parses them with
 * json-with-bigint (a regular-expression pass over the text, then a reviver on every value), to
 * keep integers beyond 2^53 exact as BigInts — which JSON.stringify then refuses, and GitHub's
 * REST ids are far below that, and that parse costs CPU on every answer (decision 0014). Errors
 * are untouched: octokit reads their bodies itself.
 */
export function useNativeJsonResponses(octokit: GithubOctokit): void {
  // The request options this hook turned parsing off in (a retry passes them here again).
  const ours = new WeakSet<object>();
  octokit.hook.wrap('request', async (request, options) => {
    // A caller that asked for the raw body (a download) keeps it.
    const raw = options.request?.parseSuccessResponseBody === false;
    if (raw && !ours.has(options.request as object)) return request(options);
    // Set on the options themselves: before-after-hook hands every inner hook the options the
    // request began with, whatever an outer hook passes on.
    options.request = { ...options.request, parseSuccessResponseBody: false };
    ours.add(options.request);
    const response = await request(options);
    response.data = await readBody(response.data as ResponseBody | undefined, response.headers);
    return response;
  });
}

/** A success body octokit hands over unread: a web stream (fetch), or undici's body (light-fetch.ts). */
type ResponseBody = ReadableStream<Uint8Array> | { arrayBuffer(): Promise<ArrayBuffer> } | string | null;

/** As octokit reads a body: JSON when it says so (its text when that fails), text, or bytes. */
async function readBody(
  body: ResponseBody | undefined,
  headers: Record<string, string | number | undefined>,
): Promise<unknown> {
  // 204, 205 and HEAD answers carry no body: octokit leaves "" there.
  if (body === null || body === undefined || typeof body === 'string') return body ?? '';
  const bytes = 'getReader' in body ? await readAll(body) : Buffer.from(await body.arrayBuffer());
  const type = String(headers['content-type'] ?? '').toLowerCase();
  const mime = type.split(';', 1)[0]!.trim();
  if (mime === 'application/json' || mime === 'application/scim+json') {
    const text = bytes.toString('utf8');
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  const utf8 = /;\s*charset="?utf-8"?/.test(type);
  if (type === '' || mime.startsWith('text/') || (utf8 && mime !== 'application/octet-stream'))
    return bytes.toString('utf8');
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

/** The stream's bytes, read by its own reader (its class may be another realm's than `Response`'s). */
async function readAll(body: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
