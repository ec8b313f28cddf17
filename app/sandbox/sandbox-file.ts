import { existsSync, readFileSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CiModel } from '../sim/ci-model.ts';
import type { SandboxCiSnapshot } from './ci.ts';
import type { DemoWorkloadSettings, DemoWorkloadState } from './demo-workload.ts';
import type { Delivery } from './hook-delivery.ts';
import type { SandboxSnapshot } from './model-snapshot.ts';

export const SANDBOX_FILE = 'sandbox.json';

/** Everything a stopped sandbox needs to go on where it was. */
export interface SandboxFile {
  version: 1;
  /** Wall-clock time of the save, for people reading the file. */
  savedAt: string;
  /**
   * The sandbox clock's time at the save, or the furthest it may have gone before the next
   * record of the journal: a resumed sandbox's clock goes on from there (never back).
   */
  now: number;
  /**
   * The last journal record the file holds (sandbox-journal.ts): records up to it are in the
   * file, those after it are applied on start. Absent in files written before the journal.
   */
  journalSeq?: number;
  webhookSecret: string;
  /**
   * The pace the sandbox was created with (SANDBOX_TIME_SCALE, decision 0030): its durations are
   * this many times shorter than a real repository's, on the wall clock. Absent in files written
   * while the sandbox clock ran that many times faster than the wall clock instead.
   */
  timeScale?: number;
  /** The settings the sandbox was created with: the workload's position only means something under them. */
  workloadSettings: DemoWorkloadSettings;
  ciModel: CiModel;
  model: SandboxSnapshot;
  ci: SandboxCiSnapshot;
  workload: DemoWorkloadState;
  /** Webhooks not yet delivered, sent again with their ids on start. */
  deliveries: Delivery[];
}

/** The stored sandbox of `dataDir`, or null on a first start. A file that cannot be read stops the start: it is someone's data. */
export function readSandboxFile(dataDir: string): SandboxFile | null {
  const path = join(dataDir, SANDBOX_FILE);
  if (!existsSync(path)) return null;
  let file: SandboxFile;
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as SandboxFile;
  } catch (error) {
    throw new Error(
      `the sandbox's stored state ${path} cannot be read (${(error as Error).message}); move it away to start afresh`,
    );
  }
  if (file.version !== 1)
    throw new Error(`the sandbox's stored state ${path} has unknown version ${String(file.version)}`);
  return file;
}

/**
 * Writes the file whole or not at all, and durably: into a temporary file first, flushed to
 * disk, then renamed over the old one (a rename within a directory is atomic) and the directory
 * flushed, so a crash at any point leaves either the previous save or this one.
 */
export async function writeSandboxFile(dataDir: string, file: SandboxFile): Promise<void> {
  const path = join(dataDir, SANDBOX_FILE);
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(JSON.stringify(file));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
    await syncDirectory(dataDir);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Flushes a directory's entries (a rename, a new file) to disk. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
