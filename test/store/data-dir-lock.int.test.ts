import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError } from '../../app/store/data-dir-lock.ts';
import { openStore } from '../../app/store/database.ts';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** A second process that opens the store in `dir` and holds it until killed. */
function holdStore(dir: string): Promise<ChildProcess> {
  const script = `
    import { openStore } from './app/store/database.ts';
    await openStore({ dataDir: ${JSON.stringify(dir)} });
    process.stdout.write('ready\\n');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
    });
    child.stdout!.on('data', (d) => String(d).includes('ready') && resolve(child));
    child.on('exit', (code) => reject(new Error(`holder exited ${code}: ${err}`)));
  });
}

function snapshot(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else out[p] = statSync(p).mtimeMs;
    }
  };
  walk(dir);
  return out;
}

describe('one process per PGlite data directory', () => {
  it('refuses a second process with a clear message, writing nothing', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'trainyard-lock-')), 'db');
    await holdStore(dir);
    const before = snapshot(dir);

    await expect(openStore({ dataDir: dir })).rejects.toBeInstanceOf(DataDirLockedError);

    // The real server refuses too, and says why.
    const server = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts'], {
      env: { ...process.env, TRAINYARD_DATA_DIR: dir, PORT: '0', DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(server);
    let stderr = '';
    server.stderr.on('data', (d) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((resolve) => server.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/in use by another Trainyard process \(pid \d+/);
    expect(snapshot(dir)).toEqual(before);
  }, 60_000);

  it('takes over a lock left by a process that no longer exists, and keeps the data', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'trainyard-lock-')), 'db');
    const first = await openStore({ dataDir: dir });
    await first.db.insertInto('repositories').values({ owner: 'acme', name: 'kept' }).execute();
    await first.close();
    // A crashed process leaves its lock behind: a pid that is not running.
    const { hostname } = await import('node:os');
    writeFileSync(`${dir}.lock`, `999999 ${hostname()}\n`);
    const second = await openStore({ dataDir: dir });
    const rows = await second.db.selectFrom('repositories').select('name').execute();
    expect(rows.map((r) => r.name)).toEqual(['kept']);
    await second.close();
  }, 60_000);

  it('releases the lock on close so the next process can open the directory', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'trainyard-lock-')), 'db');
    const first = await openStore({ dataDir: dir });
    await first.close();
    const second = await openStore({ dataDir: dir });
    await second.close();
    expect(readdirSync(join(dir, '..')).filter((f) => f.endsWith('.lock'))).toEqual([]);
  }, 60_000);
});
