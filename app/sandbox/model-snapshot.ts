import {
  type CommitGraphSnapshot,
  restoreCommitGraph,
  snapshotCommitGraph,
} from './commit-graph-snapshot.ts';
import type {
  Account,
  CheckRun,
  CheckSuite,
  CommitStatus,
  GithubAppInfo,
  Installation,
  IssueComment,
  Label,
  PullRequest,
  Repository,
  Role,
  WorkflowRun,
} from './entities.ts';
import { succeed } from './faults.ts';
import type { IdKind } from './id-sequence.ts';
import { landAsMerged } from './merge-landing.ts';

/**
 * An entity as stored: accounts and apps by id, so that each is one shared object again once
 * restored (the model compares people by object as well as by id).
 */
export type Stored<T> = T extends Account | GithubAppInfo
  ? number
  : T extends readonly (infer U)[]
    ? Stored<U>[]
    : T extends object
      ? { [K in keyof T]: Stored<T[K]> }
      : T;

export interface RepositorySnapshot {
  id: number;
  owner: number;
  name: string;
  private: boolean;
  defaultBranch: string;
  createdAt: number;
  pushedAt: number;
  graph: CommitGraphSnapshot;
  branches: [string, string][];
  pulls: Stored<PullRequest>[];
  nextNumber: number;
  labels: Label[];
  collaborators: [string, Role][];
  comments: Stored<IssueComment>[];
  checkSuites: Stored<CheckSuite>[];
  checkRuns: Stored<CheckRun>[];
  statuses: Stored<CommitStatus>[];
  workflowRuns: Stored<WorkflowRun>[];
}

export interface InstallationSnapshot {
  id: number;
  app: number;
  account: number;
  repositoryIds: number[];
  createdAt: number;
}

/**
 * What the simulated GitHub holds, as plain JSON. Left out on purpose: tokens (a restarted
 * sandbox must not honour yesterday's tokens, as access.ts says) and fault knobs (test
 * settings, back to `succeed` after a restore).
 */
export interface SandboxSnapshot {
  version: 1;
  ids: Partial<Record<IdKind, number>>;
  accounts: Account[];
  installations: InstallationSnapshot[];
  repositories: RepositorySnapshot[];
}

/** The model's contents, as SandboxGithub hands them over (its maps are private). */
export interface ModelContents {
  ids: Partial<Record<IdKind, number>>;
  accounts: Account[];
  installations: Installation[];
  repositories: Repository[];
}

export function snapshotModel(model: ModelContents): SandboxSnapshot {
  return {
    version: 1,
    ids: model.ids,
    accounts: model.accounts.map((a) => ({ ...a })),
    installations: model.installations.map(storeInstallation),
    repositories: model.repositories.map(snapshotRepository),
  };
}

/** A repository and everything it holds, as stored. */
export function snapshotRepository(repo: Repository): RepositorySnapshot {
  return {
    ...snapshotRepositoryFields(repo),
    graph: snapshotCommitGraph(repo.graph),
    branches: [...repo.branches],
    pulls: [...repo.pulls.values()].map(storePull),
    labels: [...repo.labels.values()].map(storeLabel),
    collaborators: [...repo.collaborators],
    comments: [...repo.comments.values()].map(storeComment),
    checkSuites: [...repo.checkSuites.values()].map(storeCheckSuite),
    checkRuns: [...repo.checkRuns.values()].map(storeCheckRun),
    statuses: repo.statuses.map(storeStatus),
    workflowRuns: [...repo.workflowRuns.values()].map(storeWorkflowRun),
  };
}

/** A repository's own fields, without what it holds. */
export type RepositoryFields = Pick<
  RepositorySnapshot,
  'id' | 'owner' | 'name' | 'private' | 'defaultBranch' | 'createdAt' | 'pushedAt' | 'nextNumber'
>;

export function snapshotRepositoryFields(repo: Repository): RepositoryFields {
  return {
    id: repo.id,
    owner: repo.owner.id,
    name: repo.name,
    private: repo.private,
    defaultBranch: repo.defaultBranch,
    createdAt: repo.createdAt,
    pushedAt: repo.pushedAt,
    nextNumber: repo.nextNumber,
  };
}

/*
 * Each kind of object as stored: a copy (the model goes on changing its own), people and apps
 * by id. The journal (sandbox-persistence.ts) stores changed objects one by one with these.
 */

export const storePull = (p: PullRequest): Stored<PullRequest> => ({
  ...p,
  labels: [...p.labels],
  user: p.user.id,
  mergedBy: p.mergedBy?.id ?? null,
  reviews: p.reviews.map((r) => ({ ...r, user: r.user.id })),
});

export const storeLabel = (l: Label): Label => ({ ...l });

export const storeComment = (c: IssueComment): Stored<IssueComment> => ({
  ...c,
  user: c.user.id,
  app: c.app?.id ?? null,
  reactions: c.reactions.map((r) => ({ ...r, user: r.user.id })),
});

export const storeCheckSuite = (s: CheckSuite): Stored<CheckSuite> => ({
  ...s,
  app: s.app.id,
  runIds: [...s.runIds],
});

export const storeCheckRun = (r: CheckRun): Stored<CheckRun> => ({ ...r, app: r.app.id });

export const storeStatus = (s: CommitStatus): Stored<CommitStatus> => ({ ...s, creator: s.creator.id });

export const storeWorkflowRun = (w: WorkflowRun): Stored<WorkflowRun> => ({
  ...w,
  actor: w.actor.id,
  checkRunIds: [...w.checkRunIds],
});

export function storeInstallation(i: Installation): InstallationSnapshot {
  return {
    id: i.id,
    app: i.app.id,
    account: i.account.id,
    repositoryIds: [...i.repositoryIds],
    createdAt: i.createdAt,
  };
}

/** How a restore finds the shared objects that stored entities refer to by id. */
export interface RestoreLookups {
  account(id: number): Account;
  app(id: number): GithubAppInfo;
}

export function restoreInstallation(stored: InstallationSnapshot, lookups: RestoreLookups): Installation {
  return {
    id: stored.id,
    app: lookups.app(stored.app),
    account: lookups.account(stored.account),
    repositoryIds: new Set(stored.repositoryIds),
    createdAt: stored.createdAt,
  };
}

/** A repository again, with its lookup indexes rebuilt from what they index. */
export function restoreRepository(stored: RepositorySnapshot, lookups: RestoreLookups): Repository {
  const { account, app } = lookups;
  const checkRuns = new Map(
    stored.checkRuns.map((r): [number, CheckRun] => [r.id, { ...r, app: app(r.app) }]),
  );
  const checkSuites = new Map(
    stored.checkSuites.map((s): [number, CheckSuite] => [s.id, { ...s, app: app(s.app) }]),
  );
  const checkRunsBySha = new Map<string, number[]>();
  for (const run of checkRuns.values())
    checkRunsBySha.set(run.headSha, [...(checkRunsBySha.get(run.headSha) ?? []), run.id]);
  return {
    id: stored.id,
    owner: account(stored.owner),
    name: stored.name,
    private: stored.private,
    defaultBranch: stored.defaultBranch,
    createdAt: stored.createdAt,
    pushedAt: stored.pushedAt,
    graph: restoreCommitGraph(stored.graph),
    branches: new Map(stored.branches),
    pulls: new Map(
      stored.pulls.map((p): [number, PullRequest] => [
        p.number,
        {
          ...p,
          user: account(p.user),
          mergedBy: p.mergedBy === null ? null : account(p.mergedBy),
          reviews: p.reviews.map((r) => ({ ...r, user: account(r.user) })),
        },
      ]),
    ),
    nextNumber: stored.nextNumber,
    labels: new Map(stored.labels.map((l) => [l.name.toLowerCase(), { ...l }])),
    collaborators: new Map(stored.collaborators),
    comments: new Map(
      stored.comments.map((c): [number, IssueComment] => [
        c.id,
        {
          ...c,
          user: account(c.user),
          app: c.app === null ? null : app(c.app),
          reactions: c.reactions.map((r) => ({ ...r, user: account(r.user) })),
        },
      ]),
    ),
    checkSuites,
    checkRuns,
    checkSuiteIndex: new Map([...checkSuites.values()].map((s) => [`${s.app.id}:${s.headSha}`, s.id])),
    checkRunsBySha,
    statuses: stored.statuses.map((s) => ({ ...s, creator: account(s.creator) })),
    workflowRuns: new Map(stored.workflowRuns.map((w) => [w.id, { ...w, actor: account(w.actor) }])),
    mergeBehaviour: succeed(),
    mergeLanding: landAsMerged(),
    pushBehaviour: succeed(),
    updateBranchBehaviour: succeed(),
    requestBehaviour: succeed(),
  };
}
