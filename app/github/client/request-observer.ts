import type { ProbotOctokit } from 'probot';

/** octokit.ts's GithubOctokit, named here: octokit.ts installs this hook, so importing it would make a cycle. */
type GithubOctokit = InstanceType<typeof ProbotOctokit>;

/** One request to GitHub as it ended, for the metrics. */
export interface GithubRequestReport {
  /** The method and route template, never the URL with its values: `GET /repos/{owner}/{repo}/pulls/{pull_number}`. */
  route: string;
  /** The HTTP status, or `network` when there was no answer. */
  status: string;
  seconds: number;
  installationId: number;
  /** From the answer's `x-ratelimit-*` headers, when it had them. */
  rateLimit: { resource: string; remaining: number } | null;
}

export type GithubRequestObserver = (report: GithubRequestReport) => void;

/**
 * Reports every request an installation's octokit makes, each attempt of a retried one
 * included (it is installed innermost of our hooks, so it sees each attempt).
 */
export function useRequestObserver(
  octokit: GithubOctokit,
  observer: GithubRequestObserver,
  installationId: number,
): void {
  octokit.hook.wrap('request', async (request, options) => {
    const startedAt = performance.now();
    const route = `${String(options.method ?? 'GET').toUpperCase()} ${routeTemplate(String(options.url ?? ''))}`;
    const report = (status: string, headers: Record<string, unknown> | undefined) => {
      try {
        observer({
          route,
          status,
          seconds: (performance.now() - startedAt) / 1_000,
          installationId,
          rateLimit: readRateLimit(headers),
        });
      } catch {
        // Counting never fails a request.
      }
    };
    try {
      const response = await request(options);
      report(String(response.status), response.headers as Record<string, unknown>);
      return response;
    } catch (error) {
      const failure = error as { status?: unknown; response?: { headers?: Record<string, unknown> } };
      // Octokit reports a network failure as a 500 without a response.
      const answered = typeof failure.status === 'number' && failure.response !== undefined;
      report(answered ? String(failure.status) : 'network', failure.response?.headers);
      throw error;
    }
  });
}

/**
 * The route of a request, the same whether octokit was given a template or a URL (pagination
 * follows the `Link` header's URLs): owner and repository, numbers, commit SHAs and refs become
 * placeholders, so a label never holds a value and one route is one series.
 */
export function routeTemplate(url: string): string {
  const path = url
    .replace(/^[a-z]+:\/\/[^/]+/i, '')
    .split('?', 1)[0]!
    // GitHub Enterprise's REST root, when the URL is absolute.
    .replace(/^\/api\/v3(?=\/|$)/, '');
  const segments = path.split('/');
  const out: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const previous = out.at(-1);
    if (i === 2 && segments[1] === 'repos') out.push('{owner}');
    else if (i === 3 && segments[1] === 'repos') out.push('{repo}');
    else if (previous === 'branches') out.push('{ref}');
    else if (previous === 'contents' && out.length >= 4) {
      // A file's path holds slashes: the rest is the path.
      out.push('{path}');
      break;
    } else if (
      out.at(-2) === 'git' &&
      (previous === 'ref' || previous === 'refs' || previous === 'matching-refs')
    ) {
      // A ref's name may hold slashes: the rest of the path is the ref.
      out.push('{ref}');
      break;
    } else out.push(placeholderOf(segment));
  }
  const route = out.join('/');
  return route === '' ? '/' : route;
}

function placeholderOf(segment: string): string {
  const name = /^\{(\w+)\}$/.exec(segment)?.[1];
  if (name !== undefined) {
    if (/sha|ref|branch/.test(name)) return '{ref}';
    if (/number|(^|_)id$/.test(name)) return '{number}';
    return segment;
  }
  if (/^\d+$/.test(segment)) return '{number}';
  if (/^[0-9a-f]{7,64}$/i.test(segment) && /\d/.test(segment)) return '{ref}';
  return segment;
}

function readRateLimit(headers: Record<string, unknown> | undefined): GithubRequestReport['rateLimit'] {
  const remaining = Number(headers?.['x-ratelimit-remaining']);
  if (headers?.['x-ratelimit-remaining'] === undefined || !Number.isFinite(remaining)) return null;
  const resource = headers['x-ratelimit-resource'];
  return { resource: typeof resource === 'string' && resource !== '' ? resource : 'core', remaining };
}
