import type { SandboxCiChanges, SandboxCiSnapshot } from './ci.ts';
import type { CommitGraphSnapshot } from './commit-graph-snapshot.ts';
import type { Role } from './entities.ts';
import type { RepositorySnapshot } from './model-snapshot.ts';
import { readSandboxFile, type SandboxFile } from './sandbox-file.ts';
import { type JournalRecord, type RepositoryRecord, readJournal } from './sandbox-journal.ts';

/**
 * The stored sandbox of `dataDir`: its last snapshot (sandbox.json) with the journal's later
 * records applied, or null on a first start. What a crash left is exactly what was
 * acknowledged: every record on disk, none half.
 */
export function loadSandboxState(dataDir: string): SandboxFile | null {
  const file = readSandboxFile(dataDir);
  if (file === null) return null;
  return applyJournal(file, readJournal(dataDir));
}

/** The snapshot with the records after its journalSeq applied in order (plain JSON in, plain JSON out). */
export function applyJournal(file: SandboxFile, records: readonly JournalRecord[]): SandboxFile {
  const after = records.filter((r) => r.seq > (file.journalSeq ?? 0));
  if (after.length === 0) return file;
  const accounts = new Map(file.model.accounts.map((a) => [a.id, a]));
  const installations = new Map(file.model.installations.map((i) => [i.id, i]));
  const repositories = new Map(file.model.repositories.map((r) => [r.id, openRepository(r)]));
  const ci = openCi(file.ci);
  const deliveries = new Map(file.deliveries.map((d) => [d.id, d]));
  let { ids } = file.model;
  let { now, workload } = file;
  for (const record of after) {
    ids = record.ids;
    now = Math.max(now, record.clock);
    for (const account of record.accounts ?? []) accounts.set(account.id, account);
    for (const installation of record.installations ?? []) installations.set(installation.id, installation);
    for (const changes of record.repositories ?? []) applyRepository(repositories, changes);
    if (record.ci) applyCi(ci, record.ci);
    if (record.workload) workload = record.workload;
    // Done first: a delivery given up and then redelivered within one record is pending again.
    for (const id of record.deliveries?.done ?? []) deliveries.delete(id);
    for (const delivery of record.deliveries?.queued ?? []) {
      deliveries.delete(delivery.id);
      deliveries.set(delivery.id, delivery);
    }
  }
  return {
    ...file,
    now,
    journalSeq: after.at(-1)!.seq,
    model: {
      ...file.model,
      ids,
      accounts: [...accounts.values()],
      installations: [...installations.values()],
      repositories: [...repositories.values()].map(closeRepository),
    },
    ci: closeCi(ci),
    workload,
    deliveries: [...deliveries.values()],
  };
}

/** A stored repository with its collections by key, to apply records to. */
interface OpenRepository {
  stored: RepositorySnapshot;
  graph: CommitGraphSnapshot;
  branches: Map<string, string>;
  pulls: Map<number, RepositorySnapshot['pulls'][number]>;
  labels: Map<string, RepositorySnapshot['labels'][number]>;
  collaborators: Map<string, Role>;
  comments: Map<number, RepositorySnapshot['comments'][number]>;
  checkSuites: Map<number, RepositorySnapshot['checkSuites'][number]>;
  checkRuns: Map<number, RepositorySnapshot['checkRuns'][number]>;
  statuses: Map<number, RepositorySnapshot['statuses'][number]>;
  workflowRuns: Map<number, RepositorySnapshot['workflowRuns'][number]>;
}

function openRepository(stored: RepositorySnapshot): OpenRepository {
  return {
    stored,
    graph: { commits: [...stored.graph.commits], blobs: { ...stored.graph.blobs } },
    branches: new Map(stored.branches),
    pulls: new Map(stored.pulls.map((p) => [p.number, p])),
    labels: new Map(stored.labels.map((l) => [l.name.toLowerCase(), l])),
    collaborators: new Map(stored.collaborators),
    comments: new Map(stored.comments.map((c) => [c.id, c])),
    checkSuites: new Map(stored.checkSuites.map((s) => [s.id, s])),
    checkRuns: new Map(stored.checkRuns.map((r) => [r.id, r])),
    statuses: new Map(stored.statuses.map((s) => [s.id, s])),
    workflowRuns: new Map(stored.workflowRuns.map((w) => [w.id, w])),
  };
}

function closeRepository(open: OpenRepository): RepositorySnapshot {
  return {
    ...open.stored,
    graph: open.graph,
    branches: [...open.branches],
    pulls: [...open.pulls.values()],
    labels: [...open.labels.values()],
    collaborators: [...open.collaborators],
    comments: [...open.comments.values()],
    checkSuites: [...open.checkSuites.values()],
    checkRuns: [...open.checkRuns.values()],
    statuses: [...open.statuses.values()],
    workflowRuns: [...open.workflowRuns.values()],
  };
}

function applyRepository(repositories: Map<number, OpenRepository>, changes: RepositoryRecord): void {
  if (changes.created) {
    repositories.set(changes.id, openRepository(changes.created));
    return;
  }
  const open = repositories.get(changes.id);
  if (!open) throw new Error(`the sandbox's journal changes repository ${changes.id}, which it never made`);
  if (changes.fields) open.stored = { ...open.stored, ...changes.fields };
  if (changes.graph) {
    open.graph.commits.push(...changes.graph.commits);
    Object.assign(open.graph.blobs, changes.graph.blobs);
  }
  for (const [name, sha] of changes.branches ?? []) {
    if (sha === null) open.branches.delete(name);
    else open.branches.set(name, sha);
  }
  for (const [login, role] of changes.collaborators ?? []) {
    if (role === null) open.collaborators.delete(login);
    else open.collaborators.set(login, role);
  }
  for (const pull of changes.pulls ?? []) open.pulls.set(pull.number, pull);
  for (const label of changes.labels ?? []) open.labels.set(label.name.toLowerCase(), label);
  for (const comment of changes.comments ?? []) open.comments.set(comment.id, comment);
  for (const suite of changes.checkSuites ?? []) open.checkSuites.set(suite.id, suite);
  for (const run of changes.checkRuns ?? []) open.checkRuns.set(run.id, run);
  for (const status of changes.statuses ?? []) open.statuses.set(status.id, status);
  for (const run of changes.workflowRuns ?? []) open.workflowRuns.set(run.id, run);
}

interface OpenCi {
  truths: Map<string, SandboxCiSnapshot['truths'][number][1]>;
  pullsByCommit: Map<number, Map<string, number[]>>;
  attempts: Map<string, number>;
  runtime: Pick<SandboxCiSnapshot, 'pickups' | 'unfinished'>;
}

function openCi(stored: SandboxCiSnapshot): OpenCi {
  return {
    truths: new Map(stored.truths),
    pullsByCommit: new Map(stored.pullsByCommit.map(([repoId, entries]) => [repoId, new Map(entries)])),
    attempts: new Map(stored.attempts),
    runtime: { pickups: stored.pickups, unfinished: stored.unfinished },
  };
}

function applyCi(open: OpenCi, changes: SandboxCiChanges): void {
  for (const [key, truth] of changes.truths) open.truths.set(key, truth);
  for (const [repoId, commit, numbers] of changes.pullsByCommit) {
    const index = open.pullsByCommit.get(repoId) ?? new Map<string, number[]>();
    index.set(commit, numbers);
    open.pullsByCommit.set(repoId, index);
  }
  for (const [key, count] of changes.attempts) open.attempts.set(key, count);
  if (changes.runtime) open.runtime = changes.runtime;
}

function closeCi(open: OpenCi): SandboxCiSnapshot {
  return {
    truths: [...open.truths],
    pullsByCommit: [...open.pullsByCommit].map(([repoId, index]) => [repoId, [...index]]),
    attempts: [...open.attempts],
    ...open.runtime,
  };
}
