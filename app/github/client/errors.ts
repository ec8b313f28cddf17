/**
 * GitHub's refusals as typed errors. The client throws these; the effect
 * executors turn the permanent ones into result inputs and let the transient ones propagate,
 * so that the outbox retries them with back-off.
 */
export class GithubRequestError extends Error {
  /** HTTP status; 0 when no answer came (network failure, timeout). */
  readonly status: number;
  /** GitHub's `message` (without the documentation link), or the network error's. */
  readonly githubMessage: string;
  /** `PUT /repos/acme/widgets/pulls/3/merge`: what was asked. */
  readonly request: string;
  /** Worth asking again later (5xx, network, rate limits, races GitHub reports as such). */
  readonly transient: boolean;
  /** How long GitHub asked us to wait (Retry-After or the rate limit reset), when it said. */
  readonly retryAfterSeconds: number | null;

  constructor(params: {
    status: number;
    githubMessage: string;
    request: string;
    transient: boolean;
    retryAfterSeconds?: number | null;
  }) {
    super(`${params.request} answered ${params.status || 'no response'}: ${params.githubMessage}`);
    this.name = new.target.name;
    this.status = params.status;
    this.githubMessage = params.githubMessage;
    this.request = params.request;
    this.transient = params.transient;
    this.retryAfterSeconds = params.retryAfterSeconds ?? null;
  }
}

/** The resource (repository, branch, pull request, commit, comment) does not exist. */
export class NotFoundError extends GithubRequestError {}

/** Git could not merge the two commits (POST /merges 409, update-branch 422 conflict). */
export class MergeConflictError extends GithubRequestError {}

/** GitHub refused to merge a pull request or move a protected branch; `githubMessage` says why. */
export class MergeRefusedError extends GithubRequestError {}

/** Retrying may succeed: the outbox should back off and run the effect again. */
export function isTransientGithubError(error: unknown): boolean {
  return error instanceof GithubRequestError && error.transient;
}

/** The parts of octokit's RequestError we read (duck-typed: @octokit/request-error is transitive). */
interface OctokitRequestError {
  name: string;
  status: number;
  message: string;
  request?: { method?: string; url?: string };
  response?: { headers?: Record<string, string | undefined>; data?: unknown };
}

function isOctokitRequestError(error: unknown): error is OctokitRequestError {
  return (
    error instanceof Error && error.name === 'HttpError' && typeof Reflect.get(error, 'status') === 'number'
  );
}

type ErrorClass = new (params: ConstructorParameters<typeof GithubRequestError>[0]) => GithubRequestError;

export interface ErrorMapping {
  /** The class for statuses the caller gives a meaning to (409 on POST /merges is a conflict). */
  as?: Partial<Record<number, ErrorClass>>;
  /** A refusal that is really a race worth retrying ("Base branch was modified"). */
  isRace?: (status: number, githubMessage: string) => boolean;
}

/**
 * Octokit's error as one of ours; 404 is NotFoundError unless `as` says otherwise. Anything that
 * is not an HTTP error (a bug) is returned unchanged.
 */
export function toGithubError(error: unknown, mapping: ErrorMapping = {}): unknown {
  if (error instanceof GithubRequestError || !isOctokitRequestError(error)) return error;
  const headers = error.response?.headers ?? {};
  const data = error.response?.data;
  // Without a response, octokit reports a network failure as status 500; 0 says what it was.
  const status = error.response === undefined ? 0 : error.status;
  const githubMessage = messageOf(data) ?? error.message;
  const rateLimited = isRateLimited(status, githubMessage, headers);
  const ErrorClass = mapping.as?.[status] ?? (status === 404 ? NotFoundError : GithubRequestError);
  const race = mapping.isRace?.(status, githubMessage) ?? false;
  const path =
    error.request?.url === undefined ? '?' : new URL(error.request.url, 'http://github.test').pathname;
  return new ErrorClass({
    status,
    githubMessage,
    request: `${error.request?.method ?? '?'} ${path}`,
    transient: status === 0 || status >= 500 || rateLimited || race,
    retryAfterSeconds: rateLimited ? retryAfterSeconds(headers) : null,
  });
}

/**
 * GitHub's `message`, with a 422's `errors` appended: "Validation Failed" alone does not say
 * that the head is invalid or that the pull request already exists.
 */
function messageOf(data: unknown): string | null {
  if (typeof data !== 'object' || data === null) return null;
  const message = Reflect.get(data, 'message');
  if (typeof message !== 'string') return null;
  const errors: unknown = Reflect.get(data, 'errors');
  if (!Array.isArray(errors) || errors.length === 0) return message;
  const details = errors.map((item: unknown) => {
    if (typeof item === 'string') return item;
    if (typeof item !== 'object' || item === null) return String(item);
    const text = Reflect.get(item, 'message');
    if (typeof text === 'string') return text;
    return ['resource', 'field', 'code']
      .map((key) => Reflect.get(item, key))
      .filter((part) => typeof part === 'string')
      .join(' ');
  });
  return `${message}: ${details.join('; ')}`;
}

function isRateLimited(
  status: number,
  message: string,
  headers: Record<string, string | undefined>,
): boolean {
  if (status === 429) return true;
  if (status !== 403) return false;
  return (
    /\bsecondary rate limit\b|\brate limit exceeded\b/i.test(message) ||
    headers['x-ratelimit-remaining'] === '0'
  );
}

function retryAfterSeconds(headers: Record<string, string | undefined>): number | null {
  const retryAfter = Number(headers['retry-after']);
  if (Number.isFinite(retryAfter) && retryAfter > 0) return retryAfter;
  const reset = Number(headers['x-ratelimit-reset']);
  // The reset is an epoch second; the clock only serves a hint for the outbox's back-off here.
  if (Number.isFinite(reset) && reset > 0) return Math.max(0, Math.ceil(reset - Date.now() / 1000));
  return null;
}
