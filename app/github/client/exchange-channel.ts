import { channel } from 'node:diagnostics_channel';
import type { ProbotOctokit } from 'probot';

/** octokit.ts's GithubOctokit, named here: octokit.ts installs this hook, so importing it would make a cycle. */
type GithubOctokit = InstanceType<typeof ProbotOctokit>;

/** One request the app sent to GitHub and what came back (each attempt of a retried request). */
export interface GithubExchange {
  method: string;
  /** The full URL as sent, query included. */
  url: string;
  /** The JSON body as sent (an object), or undefined. */
  requestBody: unknown;
  /** null when no answer came (a network failure). */
  status: number | null;
  responseHeaders: Record<string, string | number | undefined>;
  /** The answer's body as octokit read it: parsed JSON, text, or "" for none. */
  responseBody: unknown;
}

/**
 * Every exchange with GitHub, published on a diagnostics channel for whoever subscribes: the test
 * suite checks each one against GitHub's published REST description. With no subscriber (in
 * production) a request costs one flag read.
 */
export const githubExchangeChannel = channel('trainyard:github:exchange');

interface AnsweredError {
  response?: { status: number; headers: Record<string, string | number | undefined>; data?: unknown };
}

export function publishGithubExchanges(octokit: GithubOctokit): void {
  octokit.hook.wrap('request', async (request, options) => {
    if (!githubExchangeChannel.hasSubscribers) return request(options);
    const sent = octokit.request.endpoint.parse(options);
    const exchange = (status: number | null, headers: GithubExchange['responseHeaders'], body: unknown) => {
      const published: GithubExchange = {
        method: sent.method,
        url: sent.url,
        requestBody: sent.body,
        status,
        responseHeaders: headers,
        responseBody: body,
      };
      githubExchangeChannel.publish(published);
    };
    try {
      const response = await request(options);
      exchange(response.status, response.headers, response.data);
      return response;
    } catch (error) {
      const answered = (error as AnsweredError).response;
      if (answered === undefined) exchange(null, {}, undefined);
      else exchange(answered.status, answered.headers, answered.data);
      throw error;
    }
  });
}
