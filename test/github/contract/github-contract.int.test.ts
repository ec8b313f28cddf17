import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenOctokit, testRequestPolicy } from '../../../app/github/client/octokit.ts';
import { currentContractCheck } from '../../support/github-contract/contract-check.ts';
import { githubDescriptions } from '../../support/github-contract/github-descriptions.ts';
import { type SandboxHarness, startSandboxHarness } from '../../support/sandbox-harness.ts';

/*
 * The contract check itself (test/support/github-contract/): it must refuse what GitHub's
 * descriptions refuse, or the "every exchange validates" of every other test means nothing.
 */

describe("GitHub's REST description", () => {
  const rest = () => githubDescriptions().rest;

  it('accepts the merge the app sends and refuses a merge method GitHub does not have', () => {
    const url = '/repos/acme/widgets/pulls/3/merge';
    expect(rest().checkRequest('PUT', url, { merge_method: 'squash', sha: 'a'.repeat(40) }).problems).toEqual(
      [],
    );
    expect(rest().checkRequest('PUT', url, { merge_method: 'fast-forward' }).problems).toEqual([
      'request body/merge_method must be equal to one of the allowed values (merge, squash, rebase)',
    ]);
  });

  it('refuses an unknown path, a method a path does not have, a bad path parameter and unknown or bad query parameters', () => {
    expect(rest().checkRequest('GET', '/repos/acme/widgets/merge-queue', undefined).problems).toEqual([
      'no path in the description matches /repos/acme/widgets/merge-queue',
    ]);
    expect(rest().checkRequest('DELETE', '/repos/acme/widgets/pulls/3', undefined).problems).toEqual([
      'DELETE /repos/{owner}/{repo}/pulls/{pull_number} is not in the description',
    ]);
    expect(rest().checkRequest('GET', '/repos/acme/widgets/pulls/three', undefined).problems).toEqual([
      'path parameter pull_number must be integer',
    ]);
    expect(
      rest().checkRequest('GET', '/repos/acme/widgets/pulls?state=merged&colour=red', undefined).problems,
    ).toEqual([
      'query parameter state must be equal to one of the allowed values (open, closed, all)',
      'query parameter colour is not in the description',
    ]);
  });

  it('refuses a body on an operation without one and a missing required field', () => {
    expect(rest().checkRequest('GET', '/repos/acme/widgets', { name: 'x' }).problems).toEqual([
      'GET /repos/{owner}/{repo} takes no request body',
    ]);
    expect(
      rest().checkRequest('POST', '/repos/acme/widgets/git/refs', { ref: 'refs/heads/x' }).problems,
    ).toEqual(["request body must have required property 'sha'"]);
  });

  it('checks an answer against the schema of its status, and an undocumented status', () => {
    const url = '/repos/acme/widgets/pulls/3/merge';
    expect(
      rest().checkResponse('PUT', url, 200, { sha: 'a'.repeat(40), merged: true, message: 'ok' }).problems,
    ).toEqual([]);
    expect(rest().checkResponse('PUT', url, 200, { merged: 'yes' }).problems).toContain(
      'body/merged must be boolean',
    );
    expect(rest().checkResponse('PUT', url, 201, { sha: 'a'.repeat(40) }).problems).toEqual([
      'status 201 of PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge is not in the description',
    ]);
    // A refusal the description leaves out must still be GitHub's error body.
    expect(
      rest().checkResponse('POST', '/repos/acme/widgets/check-runs', 422, {
        message: 'No commit found for SHA: x',
      }).problems,
    ).toEqual([]);
    expect(rest().checkResponse('POST', '/repos/acme/widgets/check-runs', 422, ['nope']).problems).toEqual([
      'body must be object',
    ]);
    // Statuses GitHub answers on any operation: the basic error body.
    expect(rest().checkResponse('PUT', url, 502, { message: 'Server Error' }).problems).toEqual([]);
    expect(
      rest().checkResponse('PUT', url, 403, { message: 'You have exceeded a secondary rate limit.' })
        .problems,
    ).toEqual([]);
    expect(rest().checkResponse('PUT', url, 502, 'Bad gateway').problems).toEqual(['body must be object']);
  });
});

describe("GitHub's webhook description", () => {
  it('refuses a payload without what GitHub always sends', () => {
    const { webhooks } = githubDescriptions();
    const { problems } = webhooks.check('check_run', 'completed', {
      action: 'completed',
      check_run: { id: 1 },
    });
    expect(problems.join('; ')).toMatch(/required property/);
    expect(webhooks.check('merge_queue_entry', 'teleported', {}).problems).toEqual([
      'no webhook merge-queue-entry/teleported in the description',
    ]);
  });
});

describe('the contract check installed for every test (vitest setupFiles)', () => {
  let h: SandboxHarness;
  beforeAll(async () => {
    h = await startSandboxHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it("sees the app's requests to the sandbox, the sandbox's answers and its webhooks, and finds a request GitHub would refuse", async () => {
    const { repo } = h.installedRepository('contract', { 'a.txt': 'a\n' });
    const token = h.github.access.issueUserToken(h.github.account('acme'));
    const octokit = createTokenOctokit({ token, baseUrl: h.server.url, policy: testRequestPolicy });
    const check = currentContractCheck();
    check.check();
    const before = structuredClone(check.tally.operations);

    await octokit.rest.repos.get({ owner: 'acme', repo: repo.name });
    await octokit.rest.git.createRef({
      owner: 'acme',
      repo: repo.name,
      ref: 'refs/heads/x',
      sha: repo.branches.get('main')!,
    });
    // Outside GitHub's description: the sandbox accepts the request, the check must not.
    await octokit
      .request('GET /repos/{owner}/{repo}/pulls', { owner: 'acme', repo: repo.name, colour: 'red' })
      .catch(() => undefined);
    await h.server.webhooks.flush();

    const problems = check.check();
    expect(problems).toEqual([
      'request GET /repos/{owner}/{repo}/pulls (GET ' +
        `${h.server.url}/repos/acme/contract/pulls?colour=red): query parameter colour is not in the description`,
    ]);
    // The deliberate difference is not one of the suite's.
    check.tally.problems.length = 0;
    const pulls = check.tally.operations['GET /repos/{owner}/{repo}/pulls']!;
    pulls.requests--;
    pulls.invalidRequests--;
    const counted = (key: string) => {
      const now = check.tally.operations[key]!;
      const then = before[key];
      return {
        requests: now.requests - (then?.requests ?? 0),
        responses: now.responses - (then?.responses ?? 0),
      };
    };
    expect(counted('GET /repos/{owner}/{repo}')).toEqual({ requests: 1, responses: 1 });
    expect(counted('POST /repos/{owner}/{repo}/git/refs')).toEqual({ requests: 1, responses: 1 });
    expect(check.tally.webhooks['create']?.delivered).toBeGreaterThanOrEqual(1);
  });
});
