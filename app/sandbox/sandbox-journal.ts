import { existsSync, readFileSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { SandboxCiChanges } from './ci.ts';
import type { CommitGraphSnapshot } from './commit-graph-snapshot.ts';
import type { DemoWorkloadState } from './demo-workload.ts';
import type {
  Account,
  CheckRun,
  CheckSuite,
  CommitStatus,
  IssueComment,
  Label,
  PullRequest,
  Role,
  WorkflowRun,
} from './entities.ts';
import type { Delivery } from './hook-delivery.ts';
import type { IdKind } from './id-sequence.ts';
import type { InstallationSnapshot, RepositoryFields, RepositorySnapshot, Stored } from './model-snapshot.ts';
import { syncDirectory } from './sandbox-file.ts';

export const JOURNAL_FILE = 'sandbox.journal';

/** What changed in one repository, each object whole as stored; null: deleted. */
export interface RepositoryRecord {
  id: number;
  /** A repository made since the previous record, whole (then nothing else is set). */
  created?: RepositorySnapshot;
  fields?: RepositoryFields;
  /** Commits made since the previous record, each after its parents, with their new blobs. */
  graph?: CommitGraphSnapshot;
  branches?: [string, string | null][];
  pulls?: Stored<PullRequest>[];
  labels?: Label[];
  collaborators?: [string, Role | null][];
  comments?: Stored<IssueComment>[];
  checkSuites?: Stored<CheckSuite>[];
  checkRuns?: Stored<CheckRun>[];
  statuses?: Stored<CommitStatus>[];
  workflowRuns?: Stored<WorkflowRun>[];
}

/**
 * One line of the journal: the sandbox's changes since the previous line, written and flushed
 * to disk before any of them is acknowledged (an HTTP answer, a webhook).
 */
export interface JournalRecord {
  /** Grows by one per record, across compactions: sandbox.json says up to which it holds. */
  seq: number;
  /**
   * The furthest the sandbox clock may go before the next record: a restart resumes at the
   * largest such time it finds, so the clock never goes back across a crash.
   */
  clock: number;
  ids: Partial<Record<IdKind, number>>;
  accounts?: Account[];
  installations?: InstallationSnapshot[];
  repositories?: RepositoryRecord[];
  ci?: SandboxCiChanges;
  workload?: DemoWorkloadState;
  deliveries?: { queued: Delivery[]; done: string[] };
}

/**
 * The records of `<dataDir>/sandbox.journal`, in order. A last line cut short is a write a
 * crash interrupted, never acknowledged: it is left out. A damaged line before the last one
 * stops the start: it is someone's data.
 */
export function readJournal(dataDir: string): JournalRecord[] {
  const path = join(dataDir, JOURNAL_FILE);
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, 'utf8').split('\n');
  const records: JournalRecord[] = [];
  for (const [index, line] of lines.entries()) {
    if (line === '') continue;
    try {
      records.push(JSON.parse(line) as JournalRecord);
    } catch (error) {
      const last = lines.slice(index + 1).every((l) => l === '');
      if (last) break;
      throw new Error(
        `the sandbox's journal ${path} is damaged at line ${index + 1} (${(error as Error).message}); move it away to go back to the last snapshot`,
      );
    }
  }
  return records;
}

/** The journal file, open for appending. One writer at a time (sandbox-persistence.ts). */
export class SandboxJournal {
  private constructor(
    private readonly handle: FileHandle,
    /** Bytes in the file. */
    private length: number,
  ) {}

  static async open(dataDir: string): Promise<SandboxJournal> {
    const path = join(dataDir, JOURNAL_FILE);
    const created = !existsSync(path);
    const handle = await open(path, 'a', 0o600);
    if (created) await syncDirectory(dataDir);
    return new SandboxJournal(handle, (await handle.stat()).size);
  }

  get bytes(): number {
    return this.length;
  }

  /** Appends one record and flushes it to disk; resolves once it is there. */
  async append(record: JournalRecord): Promise<void> {
    const line = `${JSON.stringify(record)}\n`;
    await this.handle.appendFile(line);
    this.length += Buffer.byteLength(line);
    await this.handle.datasync();
  }

  /** Empties the journal, once a snapshot holds everything it held. */
  async clear(): Promise<void> {
    await this.handle.truncate(0);
    await this.handle.datasync();
    this.length = 0;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
