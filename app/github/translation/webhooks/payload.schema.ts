import { z } from 'zod';

/*
 * What Trainyard reads of each webhook it handles, checked at the door (inbox/webhook-inbox.ts): a
 * signed payload without it is answered 400 instead of being accepted and then failing in
 * processing. Exactly the fields the translators of this folder, the repository's resolution
 * (translation/repository-context.ts) and the table of translators (inbox/delivery-step.ts) read, typed as they read them (a field they default with
 * `??` may be null or missing); extra fields pass, and values are not narrowed to GitHub's
 * current enums, so a new action or state is the translators' to ignore, not a 400.
 *
 * The event's own object (pull_request, check_run, comment…) is required for every action, as
 * GitHub sends it; what only some actions carry (a rename's `changes`) only for those actions.
 */

const account = z.object({ login: z.string() });

/** resolveRepositoryContext: which repository, through which installation. */
const repository = z.object({
  id: z.number(),
  name: z.string(),
  owner: account,
  default_branch: z.string().optional(),
});

const repositoryScoped = z.object({
  installation: z.object({ id: z.number() }).nullish(),
  repository,
});

/** Pull requests named in check payloads (check-run.ts's pullRequestsOf). */
const listedPullRequest = z.object({
  number: z.number(),
  head: z.object({ sha: z.string(), ref: z.string() }),
  base: z.object({ repo: z.object({ id: z.number() }) }),
});

/** Repositories an installation gained or lost (installation.ts). */
const listedRepository = z.object({ id: z.number(), full_name: z.string() });

const pullRequest = repositoryScoped.extend({
  action: z.string(),
  number: z.number(),
  pull_request: z.object({
    state: z.string(),
    head: z.object({ ref: z.string(), sha: z.string() }),
  }),
});

const pullRequestReview = repositoryScoped.extend({
  action: z.string(),
  review: z.object({ state: z.string() }),
  pull_request: z.object({
    number: z.number(),
    state: z.string(),
    head: z.object({ ref: z.string(), sha: z.string() }),
  }),
});

const issueComment = repositoryScoped.extend({
  action: z.string(),
  // Only whether it is there: a comment on a pull request rather than on an issue.
  issue: z.object({ number: z.number(), pull_request: z.unknown().optional() }),
  comment: z.object({
    id: z.number(),
    body: z.string().nullish(),
    user: z.object({ id: z.number(), login: z.string(), type: z.string().optional() }).nullable(),
  }),
});

/** parseCheckRun's fields, and what says which commit and pull requests the run is about. */
const checkRun = repositoryScoped.extend({
  action: z.string(),
  check_run: z.object({
    name: z.string(),
    head_sha: z.string(),
    status: z.string(),
    conclusion: z.string().nullish(),
    details_url: z.string().nullish(),
    html_url: z.string().nullish(),
    output: z.object({ title: z.string().nullish() }),
    app: z.object({ owner: z.object({ avatar_url: z.string().optional() }).nullish() }).nullish(),
    started_at: z.string().nullish(),
    completed_at: z.string().nullish(),
    check_suite: z.object({ head_branch: z.string().nullish() }),
    pull_requests: z.array(listedPullRequest),
  }),
});

const checkSuite = repositoryScoped.extend({
  action: z.string(),
  check_suite: z.object({
    head_sha: z.string(),
    // Compared with null, then read as a branch name: missing would not do.
    head_branch: z.string().nullable(),
    pull_requests: z.array(listedPullRequest),
  }),
});

/** parseCommitStatus's fields, and the branches whose head the commit is. */
const status = repositoryScoped.extend({
  sha: z.string(),
  context: z.string(),
  state: z.string(),
  description: z.string().nullish(),
  target_url: z.string().nullish(),
  avatar_url: z.string().nullish(),
  created_at: z.string(),
  updated_at: z.string(),
  branches: z.array(z.object({ name: z.string(), commit: z.object({ sha: z.string() }) })),
});

const changedPaths = z.array(z.string()).nullish();

const push = repositoryScoped.extend({
  ref: z.string(),
  after: z.string(),
  created: z.boolean(),
  deleted: z.boolean(),
  forced: z.boolean(),
  repository: repository.extend({ default_branch: z.string() }),
  commits: z.array(z.object({ added: changedPaths, modified: changedPaths, removed: changedPaths })),
});

const installation = z.object({
  action: z.string(),
  installation: z.object({ id: z.number() }),
  repositories: z.array(listedRepository).nullish(),
});

const installationRepositories = z.object({
  action: z.string(),
  installation: z.object({ id: z.number() }),
});

/** repository.ts: renames, transfers and deletions; no installation is read. */
const repositoryEvent = z.object({
  action: z.string(),
  repository: z.object({ id: z.number(), name: z.string(), owner: account }),
});

interface EventSchema {
  /** What is read whatever the action. */
  schema: z.ZodObject;
  /** What some actions read: the whole payload's schema for that action. */
  byAction?: Record<string, z.ZodObject>;
}

/** By event name: the events of inbox/delivery-step.ts's `handledEvents`. */
export const payloadSchemas: Record<string, EventSchema> = {
  pull_request: { schema: pullRequest },
  pull_request_review: { schema: pullRequestReview },
  issue_comment: { schema: issueComment },
  check_run: { schema: checkRun },
  check_suite: { schema: checkSuite },
  status: { schema: status },
  push: { schema: push },
  installation: { schema: installation },
  installation_repositories: {
    schema: installationRepositories,
    byAction: {
      added: installationRepositories.extend({ repositories_added: z.array(listedRepository) }),
      removed: installationRepositories.extend({
        repositories_removed: z.array(listedRepository.partial()),
      }),
    },
  },
  repository: {
    schema: repositoryEvent,
    byAction: {
      renamed: repositoryEvent.extend({
        changes: z.object({ repository: z.object({ name: z.object({ from: z.string() }) }) }),
      }),
      transferred: repositoryEvent.extend({
        changes: z.object({
          owner: z.object({ from: z.object({ user: account.nullish(), organization: account.nullish() }) }),
        }),
      }),
    },
  },
};

export type PayloadCheck =
  /** `read`: the payload reduced to the fields Trainyard reads. */
  | { ok: true; read: Record<string, unknown> }
  /** `problem`: the first few fields missing or of the wrong type, each with its path. */
  | { ok: false; problem: string };

const MAX_ISSUES = 3;

/** Whether a handled event's payload has what Trainyard reads of it. */
export function checkPayload(event: string, payload: unknown): PayloadCheck {
  const known = payloadSchemas[event];
  if (known === undefined) throw new Error(`no payload schema for the ${event} event`);
  const action = (payload as { action?: unknown } | null)?.action;
  const schema = (typeof action === 'string' ? known.byAction?.[action] : undefined) ?? known.schema;
  const result = schema.safeParse(payload);
  if (result.success) return { ok: true, read: result.data };
  const issues = result.error.issues;
  const listed = issues
    .slice(0, MAX_ISSUES)
    .map(
      (issue) => `${issue.path.length === 0 ? '(the body)' : z.core.toDotPath(issue.path)}: ${issue.message}`,
    );
  const more = issues.length > MAX_ISSUES ? ` (and ${issues.length - MAX_ISSUES} more)` : '';
  const subject = typeof action === 'string' ? `${event}.${action}` : event;
  return {
    ok: false,
    problem: `the ${subject} payload lacks what Trainyard reads: ${listed.join('; ')}${more}`,
  };
}
