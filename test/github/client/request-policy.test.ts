import { describe, expect, it } from 'vitest';
import { GithubRequestError, isTransientGithubError } from '../../../app/github/client/errors.ts';
import {
  productionRequestPolicy,
  type RequestPolicy,
  testRequestPolicy,
} from '../../../app/github/client/octokit.ts';
import { REPO_PATH, useGithubNock } from '../../support/nock/github-nock.ts';
import { nockMergePull } from '../../support/nock/pulls.ts';
import { nockGetRepository } from '../../support/nock/repos.ts';

const github = useGithubNock();

/** Production's behaviour with every wait scaled to zero, so the test runs at once. */
// GitHub is scripted with nock, which intercepts the global fetch (light-fetch.int.test.ts runs the
// production transport against a loopback server).
const retrying: RequestPolicy = {
  ...productionRequestPolicy,
  http: 'global-fetch',
  retryBaseDelayMs: 0,
  throttle: false,
};
const throttled: RequestPolicy = {
  ...productionRequestPolicy,
  http: 'global-fetch',
  retries: 0,
  rateLimitDelayMsPerSecond: 0,
};
const secondaryLimit = {
  status: 403,
  message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
  headers: { 'retry-after': '30' },
};

describe('request policy: what is retried inside a request, and what the outbox must retry', () => {
  it('a server error is retried when retries are on (502 then 200)', async () => {
    nockGetRepository(github, { reply: { status: 502, message: 'Server Error' } });
    nockGetRepository(github);

    await expect(github.client(retrying).getRepository()).resolves.toEqual({
      id: 4242,
      defaultBranch: 'main',
    });
    expect(github.requests).toHaveLength(2);
    expect(github.isDone()).toBe(true);
  });

  it('a server error that lasts is retried `retries` times, then thrown as transient', async () => {
    nockGetRepository(github, {
      reply: { status: 503, message: 'Unavailable' },
      times: 1 + retrying.retries,
    });

    const error = await github
      .client(retrying)
      .getRepository()
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ status: 503, transient: true });
    expect(github.requests).toHaveLength(1 + retrying.retries);
    expect(github.isDone()).toBe(true);
  });

  it('with retries off, a server error throws a transient error at once', async () => {
    nockGetRepository(github, { reply: { status: 502, message: 'Server Error' } });

    const reading = github.client(testRequestPolicy).getRepository();

    await expect(reading).rejects.toBeInstanceOf(GithubRequestError);
    await expect(reading).rejects.toMatchObject({
      status: 502,
      transient: true,
      request: `GET ${REPO_PATH}`,
    });
    expect(github.isDone()).toBe(true);
  });

  it('a network failure is transient, with status 0', async () => {
    github.scope().get(REPO_PATH).replyWithError('socket hang up');

    const error = await github
      .client()
      .getRepository()
      .catch((e: unknown) => e);

    expect(isTransientGithubError(error)).toBe(true);
    expect(error).toMatchObject({ status: 0 });
    expect(github.isDone()).toBe(true);
  });

  it('a refusal (4xx) is permanent and not retried even with retries on', async () => {
    nockGetRepository(github, { reply: { status: 403, message: 'Resource not accessible by integration' } });

    const error = await github
      .client(retrying)
      .getRepository()
      .catch((e: unknown) => e);

    expect(isTransientGithubError(error)).toBe(false);
    expect(error).toMatchObject({ status: 403, githubMessage: 'Resource not accessible by integration' });
    expect(github.requests).toHaveLength(1);
    expect(github.isDone()).toBe(true);
  });

  it.each([405, 409])(
    'a merge refused with %i is an answer, not retried even with retries on',
    async (status) => {
      nockMergePull(github, { number: 3, reply: { status, message: 'Pull Request is not mergeable' } });

      const error = await github
        .client(retrying)
        .mergePullRequest({ number: 3, method: 'merge', sha: 'pr-3-head' })
        .catch((e: unknown) => e);

      expect(error).toMatchObject({ status, transient: false });
      expect(github.requests).toHaveLength(1);
      expect(github.isDone()).toBe(true);
    },
  );

  it('a secondary rate limit (403 with retry-after) is waited out by throttling', async () => {
    nockGetRepository(github, { reply: secondaryLimit });
    nockGetRepository(github);

    await expect(github.client(throttled).getRepository()).resolves.toEqual({
      id: 4242,
      defaultBranch: 'main',
    });
    expect(github.requests).toHaveLength(2);
    expect(github.isDone()).toBe(true);
  });

  it('a rate limit that outlasts the retries throws a transient error carrying the wait GitHub asked for', async () => {
    nockGetRepository(github, { reply: secondaryLimit, times: 1 + throttled.rateLimitRetries });

    const error = await github
      .client(throttled)
      .getRepository()
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ status: 403, transient: true, retryAfterSeconds: 30 });
    expect(github.isDone()).toBe(true);
  });

  it('a rate limit longer than the longest wait is left to the outbox at once', async () => {
    nockGetRepository(github, { reply: { ...secondaryLimit, headers: { 'retry-after': '3600' } } });

    const error = await github
      .client(throttled)
      .getRepository()
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ status: 403, transient: true, retryAfterSeconds: 3600 });
    expect(github.requests).toHaveLength(1);
    expect(github.isDone()).toBe(true);
  });

  it('an exhausted primary rate limit (x-ratelimit-remaining: 0) is transient', async () => {
    const reset = String(Math.ceil(Date.now() / 1000) + 1800);
    nockGetRepository(github, {
      reply: {
        status: 403,
        message: 'API rate limit exceeded for installation ID 42.',
        headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
      },
    });

    const error = await github
      .client(testRequestPolicy)
      .getRepository()
      .catch((e: unknown) => e);

    expect(isTransientGithubError(error)).toBe(true);
    expect((error as GithubRequestError).retryAfterSeconds).toBeGreaterThan(1700);
    expect(github.isDone()).toBe(true);
  });
});
