import type { ApplicationFunction } from 'probot';
import { applyRepositoryChanges, applyRepositoryDelivery, type DeliveryShell } from './delivery-shell.ts';
import { createInstallationRepositoryClient } from './repository-client.ts';
import * as checkRun from './webhooks/check-run.ts';
import * as installation from './webhooks/installation.ts';
import * as issueComment from './webhooks/issue-comment.ts';
import * as pullRequest from './webhooks/pull-request.ts';
import * as pullRequestReview from './webhooks/pull-request-review.ts';
import * as push from './webhooks/push.ts';
import * as repository from './webhooks/repository.ts';
import * as status from './webhooks/status.ts';

/** The webhook events Trainyard subscribes to; any other is acknowledged and dropped. */
export const handledEvents = new Set([
  'pull_request',
  'pull_request_review',
  'issue_comment',
  'check_run',
  'check_suite',
  'status',
  'push',
  'installation',
  'installation_repositories',
  'repository',
]);

/**
 * Events that change which repositories Trainyard serves: their handlers write at once rather
 * than through a deferred step, so the delivery processor never commits them in a group.
 */
export const repositoryChangeEvents: ReadonlySet<string> = new Set([
  'installation',
  'installation_repositories',
  'repository',
]);

// Probot's payload types (@octokit/webhooks) and the translators' (@octokit/openapi-webhooks-types)
// describe the same JSON from two generators; the translators' are the ones the code reads.
type Payload<T> = { id: string; payload: unknown } & { payload: T };
const as = <T>(context: { id: string; payload: unknown }) => context as Payload<T>;

/**
 * The Probot application: one line per event family, each translating the
 * delivery and stepping the engine through the shell. No decisions here.
 */
export function trainyardApp(shell: DeliveryShell): ApplicationFunction {
  const { cache, appSlug } = shell;
  return (app) => {
    app.on('pull_request', (c) => {
      const { id, payload } = as<pullRequest.PullRequestEvent>(c);
      return applyRepositoryDelivery(shell, { id, payload }, async ({ client }) =>
        pullRequest.toInputs(payload, await pullRequest.fetchFacts(payload, { client, cache })),
      );
    });
    app.on('pull_request_review', (c) => {
      const { id, payload } = as<pullRequestReview.PullRequestReviewEvent>(c);
      return applyRepositoryDelivery(shell, { id, payload }, async ({ client }) =>
        pullRequestReview.toInputs(payload, await pullRequestReview.fetchFacts(payload, { client, cache })),
      );
    });
    app.on('issue_comment', (c) => {
      const { id, payload } = as<issueComment.IssueCommentEvent>(c);
      return applyRepositoryDelivery(shell, { id, payload }, async ({ client }) =>
        issueComment.toInputs(payload, await issueComment.fetchFacts(payload, { client, appSlug })),
      );
    });
    app.on(['check_run', 'check_suite'], (c) => {
      const { id, payload } = as<checkRun.CheckRunEvent | checkRun.CheckSuiteEvent>(c);
      return applyRepositoryDelivery(shell, { id, payload }, async ({ client }) =>
        checkRun.toInputs(payload, await checkRun.fetchFacts(payload, { client, cache })),
      );
    });
    app.on('status', (c) => {
      const { id, payload } = as<status.StatusEvent>(c);
      return applyRepositoryDelivery(shell, { id, payload }, async ({ client }) =>
        status.toInputs(payload, await status.fetchFacts(payload, { client, cache })),
      );
    });
    app.on('push', (c) => {
      const { id, payload } = as<push.PushEvent>(c);
      return applyRepositoryDelivery(shell, { id, payload }, async ({ client }) =>
        push.toInputs(payload, await push.fetchFacts(payload, { client })),
      );
    });
    app.on(['installation', 'installation_repositories'], async (c) => {
      const { id, payload } = as<installation.InstallationEvent | installation.InstallationRepositoriesEvent>(
        c,
      );
      const clientFor = (name: { owner: string; name: string }) =>
        createInstallationRepositoryClient(shell.octokits, {
          installationId: payload.installation.id,
          owner: name.owner,
          repo: name.name,
        });
      const facts = await installation.fetchFacts(payload, { clientFor });
      return applyRepositoryChanges(shell, { id }, installation.toRepositoryChanges(payload, facts));
    });
    app.on('repository', (c) => {
      const { id, payload } = as<repository.RepositoryEvent>(c);
      return applyRepositoryChanges(shell, { id }, repository.toRepositoryChanges(payload));
    });
  };
}
