import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findApiKeyBySecret } from '../../app/store/api-keys.ts';
import { openStore } from '../../app/store/database.ts';
import { exampleNewEvent } from '../support/event-examples.ts';

// The CLI runs as a user would run it, on its own PGlite directory (the store functions it
// calls are covered on both back ends by the other tests).
const dataDir = join(mkdtempSync(join(tmpdir(), 'trainyard-cli-')), 'db');

function trainyard(...args: string[]) {
  const result = spawnSync(process.execPath, ['bin/trainyard.mjs', ...args], {
    env: { ...process.env, DATABASE_URL: '', TRAINYARD_DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('trainyard CLI', () => {
  it('creates a key shown once, lists it without its secret, and revokes it', async () => {
    const created = trainyard(
      'keys',
      'create',
      '--owner',
      'acme',
      '--repository',
      'widgets',
      '--role',
      'admin',
      '--name',
      'oncall',
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const secret = /^(ty_[A-Za-z0-9_-]{43})$/m.exec(created.stdout)?.[1];
    expect(secret).toBeDefined();
    const id = /\(([0-9a-f-]{36})\)/.exec(created.stdout)?.[1];

    const listed = trainyard('keys', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('acme/widgets');
    expect(listed.stdout).toContain('active');
    expect(listed.stdout).not.toContain(secret);

    expect(trainyard('keys', 'revoke', id!).code).toBe(0);
    expect(trainyard('keys', 'list').stdout).toContain('revoked');
    const again = trainyard('keys', 'revoke', id!);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/No active key/);

    const store = await openStore({ dataDir });
    try {
      const key = await findApiKeyBySecret(store.db, secret!);
      expect(key?.revokedAt).toBeInstanceOf(Date);
      expect(key?.role).toBe('admin');
    } finally {
      await store.close();
    }
  }, 120_000);

  it('refuses bad arguments with a readable message', () => {
    const badRole = trainyard('keys', 'create', '--owner', 'acme', '--role', 'root', '--name', 'x');
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr).toMatch(/role/);
    const badOwner = trainyard('keys', 'create', '--owner', 'not valid!', '--name', 'x');
    expect(badOwner.code).not.toBe(0);
    expect(badOwner.stderr).toMatch(/owner/);
  }, 60_000);

  it('imports a JSONL file, and refuses one with a bad line, naming it', () => {
    const good = join(dataDir, '..', 'good.jsonl');
    writeFileSync(good, `${JSON.stringify(exampleNewEvent('action.queue.enter'))}\n`);
    const ok = trainyard('events', 'import', good, '--repository', 'acme/widgets');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/Imported 1 events into acme\/widgets/);

    const bad = join(dataDir, '..', 'bad.jsonl');
    writeFileSync(bad, `${JSON.stringify(exampleNewEvent('action.queue.enter'))}\n{oops\n`);
    const refused = trainyard('events', 'import', bad, '--repository', 'acme/widgets');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/line 2: not JSON/);
    expect(refused.stderr).toMatch(/Nothing imported/);
  }, 120_000);
});
