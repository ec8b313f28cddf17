/** One entry of a 422's `errors` list, as GitHub reports validation failures. */
export interface ValidationIssue {
  resource: string;
  field?: string;
  code: string;
  message?: string;
}

/**
 * A refusal the way GitHub words it: the status code and message the REST API would answer.
 * The model throws it so that the server only has to copy it onto the wire.
 */
export class GithubError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: ValidationIssue[],
    /** Headers GitHub sends with this refusal (`retry-after` of a secondary rate limit). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'GithubError';
  }

  static notFound(): GithubError {
    return new GithubError(404, 'Not Found');
  }

  static validation(issue: ValidationIssue): GithubError {
    return new GithubError(422, 'Validation Failed', [issue]);
  }
}
