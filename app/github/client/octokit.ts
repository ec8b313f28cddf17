import { ProbotOctokit } from 'probot';
import { publishGithubExchanges } from './exchange-channel.ts';
import { lightFetch } from './light-fetch.ts';
import { useNativeJsonResponses } from './native-json-responses.ts';
import { type GithubRequestObserver, useRequestObserver } from './request-observer.ts';
import { useRequestRetries } from './request-retries.ts';

/** Octokit with Probot's plugins (REST methods, pagination, throttling) and our request hooks. */
export type GithubOctokit = InstanceType<typeof ProbotOctokit>;

/** The GitHub App's identity: effects run from the outbox, so they authenticate as the app. */
export interface GithubAppCredentials {
  appId: number;
  /** PEM, PKCS#1 (as GitHub issues it) or PKCS#8. */
  privateKey: string;
  /** REST root: `https://api.github.com` unless GitHub Enterprise or the sandbox code host. */
  baseUrl?: string;
}

/** How requests are retried and paced. Production waits as GitHub asks; tests wait for nothing. */
export interface RequestPolicy {
  /** Retries of an answer that may change (5xx, network); 0 turns retrying off. */
  retries: number;
  /** Retry i waits i² times this many milliseconds. */
  retryBaseDelayMs: number;
  /**
   * How requests go out: undici's request (lightFetch: a fraction of fetch's CPU per request),
   * or the global fetch, which nock intercepts (tests that script GitHub with nock).
   */
  http: 'light' | 'global-fetch';
  /** Throttling: pace writes, wait out rate limits (GitHub's best practices for integrators). */
  throttle: boolean;
  /** A rate-limit answer's wait (seconds) is multiplied by this many milliseconds. */
  rateLimitDelayMsPerSecond: number;
  /** Rate-limited retries of one request before it fails as a transient error. */
  rateLimitRetries: number;
  /**
   * Longest rate-limit wait (seconds) spent inside one request; beyond it the request fails as
   * transient and the outbox retries later, so an effect never holds a worker for an hour.
   */
  maxRateLimitWaitSeconds: number;
}

export const productionRequestPolicy: RequestPolicy = {
  http: 'light',
  retries: 3,
  retryBaseDelayMs: 1000,
  throttle: true,
  rateLimitDelayMsPerSecond: 1000,
  rateLimitRetries: 2,
  maxRateLimitWaitSeconds: 120,
};

/**
 * The sandbox code host (`npm start` without credentials) never rate-limits: writes are not
 * paced (GitHub's one write a second would cost a sandbox minute each at 60×, and cap the
 * demo at a write a second); failures are retried as in production.
 */
export const sandboxRequestPolicy: RequestPolicy = { ...productionRequestPolicy, throttle: false };

/** In tests, nock answers every request exactly as scripted, so nothing is retried or paced. */
export const testRequestPolicy: RequestPolicy = {
  http: 'global-fetch',
  retries: 0,
  retryBaseDelayMs: 0,
  throttle: false,
  rateLimitDelayMsPerSecond: 0,
  rateLimitRetries: 0,
  maxRateLimitWaitSeconds: 0,
};

/** The subset of a pino logger octokit writes to. */
export interface OctokitLog {
  debug: (message: string, ...rest: unknown[]) => void;
  info: (message: string, ...rest: unknown[]) => void;
  warn: (message: string, ...rest: unknown[]) => void;
  error: (message: string, ...rest: unknown[]) => void;
}

const silentLog: OctokitLog = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * One octokit per installation, authenticated as that installation. auth-app caches each
 * installation's token (refreshed a minute before GitHub's one-hour expiry) inside the octokit,
 * so the octokits themselves are kept: a second effect on the same installation reuses the token.
 */
export class InstallationOctokits {
  private readonly octokits = new Map<number, GithubOctokit>();

  constructor(
    private readonly credentials: GithubAppCredentials,
    private readonly options: {
      policy: RequestPolicy;
      log?: OctokitLog;
      observer?: GithubRequestObserver;
    } = {
      policy: productionRequestPolicy,
    },
  ) {}

  /** The app's id, which tells its own check runs from other apps'. */
  get appId(): number {
    return this.credentials.appId;
  }

  forInstallation(installationId: number): GithubOctokit {
    let octokit = this.octokits.get(installationId);
    if (octokit === undefined) {
      octokit = new ProbotOctokit({
        ...octokitOptions({
          policy: this.options.policy,
          log: this.options.log,
          baseUrl: this.credentials.baseUrl,
          // GitHub's secondary limits are per installation: so is the write pacing.
          throttleId: `installation-${installationId}`,
        }),
        auth: {
          appId: this.credentials.appId,
          privateKey: this.credentials.privateKey,
          installationId,
        },
      });
      // First, so innermost: it sees every attempt of a retried request.
      if (this.options.observer) useRequestObserver(octokit, this.options.observer, installationId);
      useOurRequestHooks(octokit, this.options.policy);
      this.octokits.set(installationId, octokit);
    }
    return octokit;
  }
}

/** An octokit with a fixed token (a personal token, or the sandbox code host that accepts any). */
export function createTokenOctokit(params: {
  token: string;
  baseUrl?: string;
  policy: RequestPolicy;
  log?: OctokitLog;
}): GithubOctokit {
  const octokit = new ProbotOctokit({
    ...octokitOptions({ ...params, throttleId: 'token' }),
    auth: { token: params.token },
  });
  useOurRequestHooks(octokit, params.policy);
  return octokit;
}

/** Answers read with JSON.parse, each attempt published, failures retried, on every octokit of the app. */
function useOurRequestHooks(octokit: GithubOctokit, policy: RequestPolicy): void {
  useNativeJsonResponses(octokit);
  // Inside the retries: each attempt is an exchange with GitHub.
  publishGithubExchanges(octokit);
  useRequestRetries(octokit, {
    retries: policy.retries,
    baseDelayMs: policy.retryBaseDelayMs,
    // Octokit retries every 4xx but these by default; 405 and 409 are answers too (merge refused,
    // conflict), and retrying them only delays the result input.
    doNotRetry: [400, 401, 403, 404, 405, 409, 410, 422, 451],
  });
}

function octokitOptions(params: {
  policy: RequestPolicy;
  log?: OctokitLog | undefined;
  baseUrl?: string | undefined;
  throttleId: string;
}) {
  const { policy } = params;
  const onLimit = (retryAfter: number, _options: unknown, _octokit: unknown, retryCount: number) =>
    retryCount < policy.rateLimitRetries && retryAfter <= policy.maxRateLimitWaitSeconds;
  return {
    log: params.log ?? silentLog,
    ...(params.baseUrl === undefined ? {} : { baseUrl: params.baseUrl.replace(/\/+$/, '') }),
    ...(policy.http === 'light' ? { request: { fetch: lightFetch } } : {}),
    // Retried by useRequestRetries instead (see why there).
    retry: { enabled: false },
    throttle: {
      enabled: policy.throttle,
      id: params.throttleId,
      retryAfterBaseValue: policy.rateLimitDelayMsPerSecond,
      onRateLimit: onLimit,
      onSecondaryRateLimit: onLimit,
    },
  };
}
