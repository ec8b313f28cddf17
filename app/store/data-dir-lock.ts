import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';

/**
 * PGlite has no lock between processes: two processes on one data directory lose writes
 * (PGlite's own limit). The server holds this lock file for as long as it has the directory open.
 */
export class DataDirLockedError extends Error {
  constructor(
    readonly lockPath: string,
    readonly holder: string,
  ) {
    super(
      `The data directory is in use by another Trainyard process (${holder}). ` +
        `Stop that process first, or point TRAINYARD_DATA_DIR elsewhere. Lock file: ${lockPath}`,
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(lockPath: string): { pid: number; host: string } | null {
  try {
    const [pid, host] = readFileSync(lockPath, 'utf8').trim().split(' ');
    return { pid: Number(pid), host: host ?? '' };
  } catch {
    return null;
  }
}

/** Takes the lock with an exclusive create; a lock left by a dead process is taken over. */
export function acquireDataDirLock(lockPath: string): DataDirLock {
  mkdirSync(dirname(lockPath), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, `${process.pid} ${hostname()}\n`);
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        // A process may open and close many stores (tests run file after file in one worker).
        process.off('exit', release);
        const holder = readHolder(lockPath);
        if (holder?.pid === process.pid) rmSync(lockPath, { force: true });
      };
      process.once('exit', release);
      return { path: lockPath, release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(lockPath);
      const stale = holder !== null && holder.host === hostname() && !isAlive(holder.pid);
      if (!stale && holder !== null)
        throw new DataDirLockedError(lockPath, `pid ${holder.pid} on ${holder.host}`);
      // Stale, or unreadable because its writer is mid-way: remove a stale one and retry.
      if (stale) rmSync(lockPath, { force: true });
    }
  }
  throw new DataDirLockedError(lockPath, 'unknown');
}
