import { GithubError } from './github-error.ts';

/**
 * A fault knob: asked once per attempt of an operation, it either lets the attempt through
 * or names the error GitHub answers instead (`repo.mergeBehaviour = failWith(405, 'not
 * mergeable')`, `repo.pushBehaviour = failTimes(2, 502)`).
 */
export interface Behaviour {
  /**
   * Throws the planned GithubError, or returns to let the operation proceed. `request`: the
   * REST request attempted, for the knob asked of every request (`repo.requestBehaviour`).
   */
  attempt(request?: AttemptedRequest): void;
}

/** A REST request as a fault knob sees it: `GET`, `/repos/acme/widgets/pulls/3`. */
export interface AttemptedRequest {
  method: string;
  path: string;
}

export const succeed = (): Behaviour => ({ attempt() {} });

/** `inner` has its say on the requests `matches` picks; the others go through. */
export function forRequests(matches: (request: AttemptedRequest) => boolean, inner: Behaviour): Behaviour {
  return {
    attempt(request) {
      if (request !== undefined && matches(request)) inner.attempt(request);
    },
  };
}

/** Every attempt fails with this status. */
export function failWith(status: number, message = defaultMessage(status)): Behaviour {
  return {
    attempt() {
      throw new GithubError(status, message);
    },
  };
}

/** The next `times` attempts fail, then attempts succeed again (a transient outage). */
export function failTimes(times: number, status: number, message = defaultMessage(status)): Behaviour {
  let left = times;
  return {
    attempt() {
      if (left <= 0) return;
      left--;
      throw new GithubError(status, message);
    },
  };
}

/**
 * The next `times` attempts hit GitHub's secondary rate limit: 403 with `retry-after`, as GitHub
 * answers an integration that makes too many writes or concurrent requests.
 */
export function secondaryRateLimit(times: number, retryAfterSeconds: number): Behaviour {
  let left = times;
  return {
    attempt() {
      if (left <= 0) return;
      left--;
      throw new GithubError(
        403,
        'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        undefined,
        { 'retry-after': String(retryAfterSeconds) },
      );
    },
  };
}

function defaultMessage(status: number): string {
  switch (status) {
    case 403:
      return 'Resource not accessible by integration';
    case 404:
      return 'Not Found';
    case 405:
      return 'Pull Request is not mergeable';
    case 409:
      return 'Conflict';
    case 422:
      return 'Validation Failed';
    case 502:
      return 'Server Error';
    default:
      return status >= 500 ? 'Server Error' : 'Request failed';
  }
}
