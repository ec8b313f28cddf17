import { AccessControl } from './access.ts';
import { ChangeLog } from './change-log.ts';
import { CheckOperations } from './checks.ts';
import type { Clock } from './clock.ts';
import { CommitGraph, type FileChanges } from './commit-graph.ts';
import type {
  Account,
  AccountType,
  GithubAppInfo,
  Installation,
  PullRequest,
  Repository,
  Role,
} from './entities.ts';
import { succeed } from './faults.ts';
import { GitOperations } from './git.ts';
import { GithubError } from './github-error.ts';
import { IdSequence } from './id-sequence.ts';
import { IssueOperations } from './issues.ts';
import { landAsMerged } from './merge-landing.ts';
import {
  restoreInstallation,
  restoreRepository,
  type SandboxSnapshot,
  snapshotModel,
} from './model-snapshot.ts';
import { PullRequestOperations } from './pull-requests.ts';
import { gitPerson, type SandboxCore } from './sandbox-core.ts';
import type { SandboxEvent, SandboxListener } from './sandbox-events.ts';
import { WorkflowRunOperations } from './workflow-runs.ts';

export interface SandboxGithubOptions {
  clock: Clock;
  /** The GitHub App under test (Trainyard). */
  app?: { id?: number; slug?: string; name?: string };
}

/** GitHub Actions' real app id and slug, so CI check runs look like the ones the app meets. */
const actionsAppId = 15368;

/**
 * An in-memory GitHub: accounts, repositories with an honest commit graph, pull requests,
 * checks, comments, labels, installations and tokens. Operations are grouped by family
 * (`git`, `pulls`, `checks`, `issues`, `actions`, `access`) and throw GithubError the way the
 * REST API refuses; every change is announced to listeners (webhooks, simulated CI) as it
 * happens. No HTTP here: `server.ts` serves this model.
 */
export class SandboxGithub implements SandboxCore {
  readonly clock: Clock;
  readonly ids = new IdSequence();
  readonly changes = new ChangeLog();
  readonly git: GitOperations;
  readonly pulls: PullRequestOperations;
  readonly checks: CheckOperations;
  readonly issues: IssueOperations;
  readonly actions: WorkflowRunOperations;
  readonly access: AccessControl;
  /** The app under test. */
  readonly app: GithubAppInfo;
  /** GitHub Actions, which owns the simulated CI's check runs. */
  readonly actionsApp: GithubAppInfo;

  private readonly accounts = new Map<string, Account>();
  private readonly repositories = new Map<string, Repository>();
  private readonly listeners: SandboxListener[] = [];

  constructor(options: SandboxGithubOptions) {
    this.clock = options.clock;
    this.pulls = new PullRequestOperations(this);
    this.git = new GitOperations(this, this.pulls);
    this.pulls.attach(this.git);
    this.checks = new CheckOperations(this);
    this.issues = new IssueOperations(this);
    this.actions = new WorkflowRunOperations(this, this.checks);
    this.access = new AccessControl(this);
    const slug = options.app?.slug ?? 'trainyard';
    this.app = {
      id: options.app?.id ?? 1,
      slug,
      name: options.app?.name ?? 'Trainyard',
      owner: this.account('trainyard-dev', 'Organization'),
      bot: this.account(`${slug}[bot]`, 'Bot'),
    };
    this.actionsApp = {
      id: actionsAppId,
      slug: 'github-actions',
      name: 'GitHub Actions',
      owner: this.account('github', 'Organization'),
      bot: this.account('github-actions[bot]', 'Bot'),
    };
  }

  on(listener: SandboxListener): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }

  emit(event: SandboxEvent): void {
    this.changes.event(event);
    for (const listener of [...this.listeners]) listener(event);
  }

  /** The account named `login`, created on first use. */
  account(login: string, type: AccountType = 'User'): Account {
    const key = login.toLowerCase();
    let account = this.accounts.get(key);
    if (!account) {
      account = { id: this.ids.take('account'), login, type, name: login };
      this.accounts.set(key, account);
      this.changes.account(account);
    }
    return account;
  }

  findAccount(login: string): Account | undefined {
    return this.accounts.get(login.toLowerCase());
  }

  /** A repository with one commit on its default branch holding `files`. */
  createRepository(params: {
    owner: string;
    name: string;
    ownerType?: AccountType;
    defaultBranch?: string;
    private?: boolean;
    files?: FileChanges;
  }): Repository {
    const key = `${params.owner}/${params.name}`.toLowerCase();
    if (this.repositories.has(key)) throw new GithubError(422, 'Repository creation failed.');
    const owner = this.account(params.owner, params.ownerType ?? 'Organization');
    const graph = new CommitGraph();
    const defaultBranch = params.defaultBranch ?? 'main';
    const root = graph.create({
      label: `${defaultBranch}-1`,
      parents: [],
      tree: graph.applyChanges(new Map(), params.files ?? { 'README.md': `# ${params.name}\n` }),
      message: 'Initial commit',
      author: gitPerson(this, owner),
    });
    const now = this.clock.now();
    const repo: Repository = {
      id: this.ids.take('repository'),
      owner,
      name: params.name,
      private: params.private ?? false,
      defaultBranch,
      createdAt: now,
      pushedAt: now,
      graph,
      branches: new Map([[defaultBranch, root.sha]]),
      pulls: new Map(),
      nextNumber: 1,
      labels: new Map(),
      collaborators: new Map(),
      comments: new Map(),
      checkSuites: new Map(),
      checkRuns: new Map(),
      checkSuiteIndex: new Map(),
      checkRunsBySha: new Map(),
      statuses: [],
      workflowRuns: new Map(),
      mergeBehaviour: succeed(),
      mergeLanding: landAsMerged(),
      pushBehaviour: succeed(),
      updateBranchBehaviour: succeed(),
      requestBehaviour: succeed(),
    };
    this.repositories.set(key, repo);
    this.changes.created(repo);
    return repo;
  }

  repository(owner: string, name: string): Repository | undefined {
    return this.repositories.get(`${owner}/${name}`.toLowerCase());
  }

  repositoryById(id: number): Repository | undefined {
    return [...this.repositories.values()].find((r) => r.id === id);
  }

  /** Gives `login` a role on the repository (a collaborator). */
  grant(repo: Repository, login: string, role: Role): Account {
    const user = this.account(login);
    repo.collaborators.set(user.login.toLowerCase(), role);
    this.changes.collaborator(repo, user.login);
    return user;
  }

  /** Installs the app under test on repositories of one account. */
  install(repos: Repository[], sender?: Account): Installation {
    const account = repos[0]?.owner;
    if (!account) throw new Error('install the app on at least one repository');
    return this.access.install({ app: this.app, account, repos, sender: sender ?? account });
  }

  /**
   * A contributor's pull request: a branch from the base with one commit changing `files`,
   * then the PR (GitHub's push, then `opened`).
   */
  openPullRequest(
    repo: Repository,
    params: {
      author: string;
      title: string;
      files: FileChanges;
      branch?: string;
      base?: string;
      body?: string;
      draft?: boolean;
      labels?: string[];
    },
  ): PullRequest {
    const author = this.account(params.author);
    const base = params.base ?? repo.defaultBranch;
    const branch = params.branch ?? `${params.author}/pr-${repo.nextNumber}`;
    this.git.commit(repo, {
      branch,
      from: base,
      files: params.files,
      message: params.title,
      author,
      label: `pr-${repo.nextNumber}-v1`,
    });
    const pull = this.pulls.open(repo, {
      head: branch,
      base,
      title: params.title,
      body: params.body,
      draft: params.draft,
      user: author,
    });
    if (params.labels?.length)
      this.issues.addLabels(repo, { number: pull.number, names: params.labels, sender: author });
    return pull;
  }

  /** A new commit on a PR's head branch (GitHub's push, then `synchronize`). */
  pushToPullRequest(
    repo: Repository,
    number: number,
    params: { files: FileChanges; message?: string; author?: string },
  ) {
    const pull = this.pulls.get(repo, number);
    const version = repo.graph.commitsBetween(repo.branches.get(pull.base) ?? null, pull.headSha).length + 1;
    return this.git.commit(repo, {
      branch: pull.head,
      files: params.files,
      message: params.message ?? `Update ${pull.title}`,
      author: this.account(params.author ?? pull.user.login),
      label: `pr-${number}-v${version}`,
    });
  }

  /** The readable labels of a branch's first-parent history, newest first (`merge-pr-3`, `main-2`, …). */
  shaHistory(repo: Repository, branch: string): string[] {
    const labels: string[] = [];
    for (let commit = repo.graph.get(repo.branches.get(branch) ?? ''); commit; ) {
      labels.push(commit.label);
      commit = repo.graph.get(commit.parents[0] ?? '');
    }
    return labels;
  }

  /** The readable label of a sha (its sha if unknown). */
  label(repo: Repository, sha: string): string {
    return repo.graph.get(sha)?.label ?? sha;
  }

  /** The text of `path` at a branch or sha, or null. */
  fileText(repo: Repository, ref: string, path: string): string | null {
    const blob = this.git.resolve(repo, ref)?.tree.get(path);
    return blob === undefined ? null : (repo.graph.blob(blob) ?? null);
  }

  allRepositories(): Repository[] {
    return [...this.repositories.values()];
  }

  /** Everything the model holds as plain JSON, to be restored by fromSnapshot (model-snapshot.ts). */
  toSnapshot(): SandboxSnapshot {
    return snapshotModel({
      ids: this.ids.toSnapshot(),
      accounts: [...this.accounts.values()],
      installations: [...this.access.installations.values()],
      repositories: [...this.repositories.values()],
    });
  }

  /**
   * A model holding a snapshot's contents, on `options.clock`. The app under test must be the
   * one the snapshot was taken with: stored check runs and installations name it by id.
   */
  static fromSnapshot(snapshot: SandboxSnapshot, options: SandboxGithubOptions): SandboxGithub {
    if (snapshot.version !== 1)
      throw new Error(`unknown sandbox snapshot version ${String(snapshot.version)}`);
    const github = new SandboxGithub(options);
    github.accounts.clear();
    const byId = new Map<number, Account>();
    for (const stored of snapshot.accounts) {
      const account = { ...stored };
      github.accounts.set(account.login.toLowerCase(), account);
      byId.set(account.id, account);
    }
    github.ids.restore(snapshot.ids);
    // The constructor made the apps' accounts before the snapshot's replaced them: one object per person.
    for (const app of [github.app, github.actionsApp]) {
      app.owner = github.account(app.owner.login, app.owner.type);
      app.bot = github.account(app.bot.login, app.bot.type);
    }
    const apps = new Map([github.app, github.actionsApp].map((app) => [app.id, app]));
    const lookups = {
      account(id: number): Account {
        const account = byId.get(id);
        if (!account) throw new Error(`the sandbox snapshot names an unknown account ${id}`);
        return account;
      },
      app(id: number): GithubAppInfo {
        const app = apps.get(id);
        if (!app) throw new Error(`the sandbox snapshot names app ${id}, which this sandbox is not running`);
        return app;
      },
    };
    for (const stored of snapshot.repositories) {
      const repo = restoreRepository(stored, lookups);
      github.repositories.set(`${repo.owner.login}/${repo.name}`.toLowerCase(), repo);
    }
    for (const stored of snapshot.installations) {
      const installation = restoreInstallation(stored, lookups);
      github.access.installations.set(installation.id, installation);
    }
    return github;
  }
}
