import type { CheckReport } from '../../queue/inputs.ts';
import { parseCheckRun, parseCommitStatus } from './check-report.ts';
import type { PullRequestInfo, RepositoryClient } from './client.ts';
import {
  type ErrorMapping,
  GithubRequestError,
  MergeConflictError,
  MergeRefusedError,
  NotFoundError,
  toGithubError,
} from './errors.ts';
import type { GithubOctokit, InstallationOctokits } from './octokit.ts';

const PER_PAGE = 100;

/** Runs a request and rethrows GitHub's refusal as our typed error. */
async function call<T>(request: () => Promise<T>, mapping?: ErrorMapping): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw toGithubError(error, mapping);
  }
}

/** GitHub answers 422 "Reference does not exist" (sometimes 404) for a ref that is not there. */
function isMissingRef(error: unknown): boolean {
  return (
    error instanceof NotFoundError ||
    (error instanceof GithubRequestError &&
      error.status === 422 &&
      /does not exist/i.test(error.githubMessage))
  );
}

/** The client the outbox uses: the installation's octokit, and the app's id for its check runs. */
export function createInstallationRepositoryClient(
  octokits: InstallationOctokits,
  params: { installationId: number; owner: string; repo: string },
): RepositoryClient {
  return createRepositoryClient(octokits.forInstallation(params.installationId), {
    owner: params.owner,
    repo: params.repo,
    appId: octokits.appId,
  });
}

/**
 * The RepositoryClient over REST (docs/architecture.md, "Conventions in the code"). `appId`, when known, narrows the check-run lookup
 * to this app's runs: another app may publish a run with the same name, and only ours can be
 * updated.
 */
export function createRepositoryClient(
  octokit: GithubOctokit,
  params: { owner: string; repo: string; appId?: number },
): RepositoryClient {
  const { owner, repo } = params;
  const r = { owner, repo };
  const rest = octokit.rest;

  async function getBranchSha(branch: string): Promise<string | null> {
    try {
      const { data } = await call(() => rest.git.getRef({ ...r, ref: `heads/${branch}` }));
      return data.object.sha;
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  async function getPullRequest(number: number): Promise<PullRequestInfo> {
    const { data } = await call(() => rest.pulls.get({ ...r, pull_number: number }));
    return {
      number: data.number,
      title: data.title,
      body: data.body ?? '',
      url: data.html_url,
      state: data.state === 'closed' ? 'closed' : 'open',
      merged: data.merged,
      mergeSha: data.merged ? (data.merge_commit_sha ?? null) : null,
      draft: data.draft ?? false,
      author: {
        id: data.user.id,
        login: data.user.login,
        type: data.user.type as PullRequestInfo['author']['type'],
      },
      base: data.base.ref,
      head: data.head.ref,
      headSha: data.head.sha,
      labels: data.labels.map((label) => ({
        id: label.id,
        name: label.name,
        color: label.color,
        default: label.default,
      })),
    };
  }

  async function findCheckRunId(name: string, headSha: string): Promise<number | null> {
    const runs = await call(() =>
      octokit.paginate(rest.checks.listForRef, {
        ...r,
        ref: headSha,
        check_name: name,
        ...(params.appId === undefined ? {} : { app_id: params.appId }),
        per_page: PER_PAGE,
      }),
    );
    const run = runs.find((candidate) => candidate.name === name);
    return run === undefined ? null : Number(run.id);
  }

  async function listCommitStatuses(sha: string): Promise<CheckReport[]> {
    // The combined status holds the latest status per context; octokit.paginate cannot unwrap it
    // (it is an object with `url`, not a list), so its pages are walked here.
    const reports: CheckReport[] = [];
    for (let page = 1; ; page++) {
      const { data } = await call(() =>
        rest.repos.getCombinedStatusForRef({
          ...r,
          ref: sha,
          per_page: PER_PAGE,
          ...(page > 1 ? { page } : {}),
        }),
      );
      reports.push(...data.statuses.map(parseCommitStatus));
      if (data.statuses.length < PER_PAGE || reports.length >= data.total_count) return reports;
    }
  }

  return {
    owner,
    repo,

    async getRepository() {
      const { data } = await call(() => rest.repos.get(r));
      return { id: data.id, defaultBranch: data.default_branch };
    },

    getBranchSha,

    async setBranch(branch, sha) {
      try {
        await call(() => rest.git.updateRef({ ...r, ref: `heads/${branch}`, sha, force: true }));
      } catch (error) {
        if (!isMissingRef(error)) throw error;
        await call(() => rest.git.createRef({ ...r, ref: `refs/heads/${branch}`, sha }));
      }
    },

    async fastForwardBranch({ branch, sha }) {
      await call(() => rest.git.updateRef({ ...r, ref: `heads/${branch}`, sha, force: false }), {
        as: { 409: MergeRefusedError, 422: MergeRefusedError },
      });
    },

    async deleteBranch(branch) {
      try {
        await call(() => rest.git.deleteRef({ ...r, ref: `heads/${branch}` }));
      } catch (error) {
        if (!isMissingRef(error)) throw error;
      }
    },

    async mergeIntoBranch({ branch, head, message }) {
      const response = await call(
        () => rest.repos.merge({ ...r, base: branch, head, commit_message: message }),
        { as: { 409: MergeConflictError } },
      );
      // 204: the head is already in the branch, nothing was merged and no body says where it is.
      if (response.status === 201) return { sha: response.data.sha, tree: response.data.commit.tree.sha };
      const sha = await getBranchSha(branch);
      if (sha === null) throw new Error(`branch ${branch} vanished after a merge into it`);
      return { sha, tree: null };
    },

    async getCommit(ref) {
      // One file of the diff is enough: only the commit's tree and parents are read.
      const { data } = await call(() => rest.repos.getCommit({ ...r, ref, per_page: 1 }), {
        as: { 422: NotFoundError },
      });
      return { sha: data.sha, tree: data.commit.tree.sha, parents: data.parents.map((p) => p.sha) };
    },

    getPullRequest,

    async findOpenPullRequestByHead(branch) {
      const { data } = await call(() =>
        rest.pulls.list({ ...r, head: `${owner}:${branch}`, state: 'open', per_page: PER_PAGE }),
      );
      return data[0]?.number ?? null;
    },

    async createDraftPullRequest({ head, base, title, body }) {
      const { data } = await call(() => rest.pulls.create({ ...r, head, base, title, body, draft: true }));
      return data.number;
    },

    async closePullRequest(number) {
      await call(() => rest.pulls.update({ ...r, pull_number: number, state: 'closed' }));
    },

    async mergePullRequest({ number, method, sha }) {
      const { data } = await call(
        () => rest.pulls.merge({ ...r, pull_number: number, merge_method: method, sha }),
        {
          as: {
            403: MergeRefusedError,
            405: MergeRefusedError,
            409: MergeRefusedError,
            422: MergeRefusedError,
          },
          // The base moved while GitHub merged: the same request succeeds a moment later.
          isRace: (status, message) => status === 405 && /base branch was modified/i.test(message),
        },
      );
      return data.sha;
    },

    async updatePullRequestBranch({ number, expectedHeadSha }) {
      try {
        await call(
          () => rest.pulls.updateBranch({ ...r, pull_number: number, expected_head_sha: expectedHeadSha }),
          {
            as: { 422: MergeRefusedError },
            // The head moved between reading it and asking: ask again with the new head.
            isRace: (status, message) => status === 422 && /expected head sha/i.test(message),
          },
        );
        return 'updating';
      } catch (error) {
        if (!(error instanceof MergeRefusedError) || error.transient) throw error;
        if (/no new commits/i.test(error.githubMessage)) return 'up_to_date';
        if (/conflict/i.test(error.githubMessage)) throw new MergeConflictError(error);
        throw error;
      }
    },

    async listPullRequestFiles(number) {
      const files = await call(() =>
        octokit.paginate(rest.pulls.listFiles, { ...r, pull_number: number, per_page: PER_PAGE }),
      );
      return files.flatMap((file) =>
        file.previous_filename === undefined ? [file.filename] : [file.previous_filename, file.filename],
      );
    },

    async listReviews(number) {
      const reviews = await call(() =>
        octokit.paginate(rest.pulls.listReviews, { ...r, pull_number: number, per_page: PER_PAGE }),
      );
      // Oldest first: a reviewer's later approval replaces an earlier change request, a dismissal
      // withdraws either, and a plain comment changes neither.
      const latest = new Map<string, 'APPROVED' | 'CHANGES_REQUESTED'>();
      for (const review of reviews) {
        const login = review.user?.login;
        if (login === undefined) continue;
        if (review.state === 'APPROVED' || review.state === 'CHANGES_REQUESTED')
          latest.set(login, review.state);
        else if (review.state === 'DISMISSED') latest.delete(login);
      }
      const by = (state: string) => [...latest].filter(([, s]) => s === state).map(([login]) => login);
      return { approvedBy: by('APPROVED'), changesRequestedBy: by('CHANGES_REQUESTED') };
    },

    async listChecks(sha) {
      const runs = await call(() =>
        octokit.paginate(rest.checks.listForRef, { ...r, ref: sha, per_page: PER_PAGE }),
      );
      return [...runs.map(parseCheckRun), ...(await listCommitStatuses(sha))];
    },

    async listPullRequestsForCommit(sha) {
      const pulls = await call(() =>
        octokit.paginate(rest.repos.listPullRequestsAssociatedWithCommit, {
          ...r,
          commit_sha: sha,
          per_page: PER_PAGE,
        }),
      );
      // GitHub lists every pull request containing the commit, merged ones too.
      return pulls
        .filter((pull) => pull.state === 'open' && pull.head.sha === sha)
        .map((pull) => pull.number);
    },

    async upsertCheckRun({ name, headSha, status, conclusion, title, summary }) {
      const fields = {
        status,
        // GitHub rejects a conclusion on a run that is not completed.
        ...(status === 'completed' && conclusion !== null ? { conclusion } : {}),
        output: { title, summary },
      };
      const id = await findCheckRunId(name, headSha);
      if (id === null) await call(() => rest.checks.create({ ...r, name, head_sha: headSha, ...fields }));
      else await call(() => rest.checks.update({ ...r, check_run_id: id, ...fields }));
    },

    async createComment({ number, body }) {
      await call(() => rest.issues.createComment({ ...r, issue_number: number, body }));
    },

    async listComments(number) {
      const comments = await call(() =>
        octokit.paginate(rest.issues.listComments, { ...r, issue_number: number, per_page: PER_PAGE }),
      );
      return comments.map((comment) => ({ id: comment.id, body: comment.body ?? '' }));
    },

    async addReaction({ commentId, content }) {
      await call(() => rest.reactions.createForIssueComment({ ...r, comment_id: commentId, content }));
    },

    async getPermission(login) {
      try {
        const { data } = await call(() =>
          rest.repos.getCollaboratorPermissionLevel({ ...r, username: login }),
        );
        // `permission` folds maintain into write and triage into read; `role_name` keeps them.
        const role = data.role_name;
        if (
          role === 'admin' ||
          role === 'maintain' ||
          role === 'write' ||
          role === 'triage' ||
          role === 'read'
        )
          return role;
        const permission = data.permission;
        return permission === 'admin' || permission === 'write' || permission === 'read'
          ? permission
          : 'none';
      } catch (error) {
        if (error instanceof NotFoundError) return 'none';
        throw error;
      }
    },

    async getFileText({ path, ref }) {
      try {
        const { data } = await call(() => rest.repos.getContent({ ...r, path, ref }));
        if (Array.isArray(data) || data.type !== 'file' || !('content' in data)) return null;
        return Buffer.from(data.content, 'base64').toString('utf8');
      } catch (error) {
        if (error instanceof NotFoundError) return null;
        throw error;
      }
    },

    async cancelWorkflowRuns(sha) {
      const runs = await call(() =>
        octokit.paginate(rest.actions.listWorkflowRunsForRepo, { ...r, head_sha: sha, per_page: PER_PAGE }),
      );
      for (const run of runs) {
        if (run.status === 'completed') continue;
        try {
          await call(() => rest.actions.cancelWorkflowRun({ ...r, run_id: run.id }));
        } catch (error) {
          // 409: it completed meanwhile. Best effort: a run we may not cancel is left to finish.
          if (error instanceof GithubRequestError && !error.transient) continue;
          throw error;
        }
      }
    },
  };
}
