import { Command, InvalidArgumentError, Option } from 'commander';
import { ownerSchema, repositoryNameSchema } from '../../shared/schemas/common.schema.ts';
import { readSettings } from '../settings.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../store/api-keys.ts';
import { DataDirLockedError } from '../store/data-dir-lock.ts';
import { openStore, type Store } from '../store/database.ts';
import { rebuildStatsProjections } from '../store/projection/projection.ts';
import { ensureRepository, findRepository, listRepositories } from '../store/repositories.ts';
import { importEvents } from './import-events.ts';

async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const settings = readSettings();
  const store = await openStore({ databaseUrl: settings.DATABASE_URL, dataDir: settings.TRAINYARD_DATA_DIR });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

function parseFullName(value: string): { owner: string; name: string } {
  const [owner, name, ...rest] = value.split('/');
  if (
    rest.length > 0 ||
    !ownerSchema.safeParse(owner).success ||
    !repositoryNameSchema.safeParse(name).success
  ) {
    throw new InvalidArgumentError('expected owner/name, e.g. acme/widgets');
  }
  return { owner: owner!, name: name! };
}

function parseOwner(value: string): string {
  if (!ownerSchema.safeParse(value).success) throw new InvalidArgumentError('not a valid owner login');
  return value;
}

const program = new Command('trainyard').description('Trainyard merge queue: administration commands');

const keys = program.command('keys').description('application keys for the v1 API');
keys
  .command('create')
  .description('create a key; its secret is shown once')
  .requiredOption('--owner <owner>', 'owner whose repositories the key may use', parseOwner)
  .option('--repository <name>', 'limit the key to one repository of the owner')
  .addOption(
    new Option('--role <role>', 'read: GET only; admin: also pause/unpause')
      .choices(['read', 'admin'])
      .default('read'),
  )
  .requiredOption('--name <name>', 'a name to recognise the key by (shown in events)')
  .action(async (opts: { owner: string; repository?: string; role: 'read' | 'admin'; name: string }) => {
    if (opts.repository !== undefined && !repositoryNameSchema.safeParse(opts.repository).success) {
      throw new InvalidArgumentError('--repository: not a valid repository name');
    }
    await withStore(async (store) => {
      const { key, secret } = await createApiKey(store.db, {
        name: opts.name,
        owner: opts.owner,
        repository: opts.repository ?? null,
        role: opts.role,
        now: new Date(),
      });
      const scope = key.repository ? `${key.owner}/${key.repository}` : `${key.owner}/*`;
      process.stdout.write(`Created ${key.role} key "${key.name}" (${key.id}) for ${scope}.\n`);
      process.stdout.write(`Secret (shown only now):\n${secret}\n`);
    });
  });
keys
  .command('list')
  .description('list keys (never their secrets)')
  .action(async () => {
    await withStore(async (store) => {
      for (const k of await listApiKeys(store.db)) {
        const scope = k.repository ? `${k.owner}/${k.repository}` : `${k.owner}/*`;
        const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active';
        process.stdout.write(`${k.id}  ${k.role.padEnd(5)}  ${scope}  "${k.name}"  ${k.hint}  ${state}\n`);
      }
    });
  });
keys
  .command('revoke <id>')
  .description('revoke a key by id')
  .action(async (id: string) => {
    await withStore(async (store) => {
      if (!/^[0-9a-f-]{36}$/i.test(id) || !(await revokeApiKey(store.db, id, new Date()))) {
        process.stderr.write(`No active key with id ${id}.\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`Revoked ${id}.\n`);
    });
  });

const repos = program.command('repos').description('repositories known to this installation');
repos
  .command('add <owner/name>')
  .description('register a repository (normally done by the GitHub App installation)')
  .action(async (fullName: string) => {
    const { owner, name } = parseFullName(fullName);
    await withStore(async (store) => {
      const repo = await ensureRepository(store.db, { owner, name });
      process.stdout.write(`${repo.fullName} (id ${repo.id})\n`);
    });
  });
repos.command('list').action(async () => {
  await withStore(async (store) => {
    for (const r of await listRepositories(store.db)) process.stdout.write(`${r.fullName}\n`);
  });
});

program
  .command('events')
  .description('the event log')
  .command('import <file>')
  .description('append the events of a JSONL file (one event per line): all of them, or none')
  .requiredOption('--repository <owner/name>', 'repository the events belong to', parseFullName)
  .action(async (file: string, opts: { repository: { owner: string; name: string } }) => {
    await withStore(async (store) => {
      const started = performance.now();
      const report = await importEvents(store, { file, ...opts.repository, now: new Date() });
      if (report.badLines > 0) {
        for (const p of report.problems) process.stderr.write(`line ${p.line}: ${p.reason}\n`);
        if (report.badLines > report.problems.length) {
          process.stderr.write(`… and ${report.badLines - report.problems.length} more bad lines\n`);
        }
        process.stderr.write(`Nothing imported: ${report.badLines} bad line(s).\n`);
        process.exitCode = 1;
        return;
      }
      const seconds = (performance.now() - started) / 1000;
      process.stdout.write(
        `Imported ${report.imported} events into ${opts.repository.owner}/${opts.repository.name} ` +
          `in ${seconds.toFixed(1)} s.\n`,
      );
    });
  });

program
  .command('stats')
  .description('statistics')
  .command('rebuild')
  .description('recompute the statistics projections from the event log')
  .option('--repository <owner/name>', 'only this repository (default: every repository)', parseFullName)
  .action(async (opts: { repository?: { owner: string; name: string } }) => {
    await withStore(async (store) => {
      let targets = await listRepositories(store.db);
      if (opts.repository) {
        const found = await findRepository(store.db, opts.repository.owner, opts.repository.name);
        if (!found) {
          process.stderr.write(`Unknown repository ${opts.repository.owner}/${opts.repository.name}.\n`);
          process.exitCode = 1;
          return;
        }
        targets = [found];
      }
      for (const repo of targets) {
        const started = performance.now();
        const replayed = await rebuildStatsProjections(store.db, repo.id);
        const seconds = (performance.now() - started) / 1000;
        process.stdout.write(
          `${repo.fullName}: replayed ${replayed} queue events in ${seconds.toFixed(1)} s.\n`,
        );
      }
    });
  });

try {
  await program.parseAsync();
} catch (error) {
  if (error instanceof DataDirLockedError || error instanceof InvalidArgumentError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`trainyard: ${(error as Error).message}\n`);
  }
  process.exitCode = process.exitCode || 1;
}
