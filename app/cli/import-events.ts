import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { type NewEvent, newEventSchema } from '../../shared/schemas/event.schema.ts';
import type { Store } from '../store/database.ts';
import { appendEvents, type EventToAppend, toEventToAppend } from '../store/events.ts';
import { ensureRepository } from '../store/repositories.ts';
import { inRepositoryTransaction } from '../store/repository-transaction.ts';

export interface ImportProblem {
  line: number;
  reason: string;
}

export interface ImportReport {
  imported: number;
  /** Every bad line, up to `maxReported`; `badLines` counts them all. */
  problems: ImportProblem[];
  badLines: number;
}

// Fields of the API's event shape that an import ignores, so a page of /logs can be re-imported.
const apiOnlyFields = ['id', 'repository', 'outcome'] as const;

function describeIssues(issues: { path: PropertyKey[]; message: string }[]): string {
  return issues
    .map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/** Parses one line; blank lines are skipped (null). */
export function parseEventLine(
  text: string,
): { ok: true; event: NewEvent | null } | { ok: false; reason: string } {
  if (text.trim() === '') return { ok: true, event: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'expected a JSON object (one event per line)' };
  }
  const candidate = { ...(value as Record<string, unknown>) };
  for (const field of apiOnlyFields) delete candidate[field];
  const parsed = newEventSchema.safeParse(candidate);
  if (!parsed.success) return { ok: false, reason: describeIssues(parsed.error.issues) };
  return { ok: true, event: parsed.data };
}

async function* lines(file: string): AsyncGenerator<string> {
  const reader = createInterface({
    input: createReadStream(file, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  for await (const line of reader) yield line;
}

const CHUNK = 5_000;

/**
 * Imports a JSONL file of events into one repository: all lines or none. The file is read
 * twice — once to validate every line, once to append inside one transaction — so a large
 * history never has to fit in memory.
 */
export async function importEvents(
  store: Store,
  options: { file: string; owner: string; name: string; now: Date; maxReported?: number },
): Promise<ImportReport> {
  const maxReported = options.maxReported ?? 100;
  const problems: ImportProblem[] = [];
  let badLines = 0;
  let lineNumber = 0;
  for await (const text of lines(options.file)) {
    lineNumber++;
    const result = parseEventLine(text);
    if (!result.ok) {
      badLines++;
      if (problems.length < maxReported) problems.push({ line: lineNumber, reason: result.reason });
    }
  }
  if (badLines > 0) return { imported: 0, problems, badLines };

  const repository = await ensureRepository(store.db, { owner: options.owner, name: options.name });
  const imported = await inRepositoryTransaction(
    store.db,
    repository.id,
    async (tx) => {
      let count = 0;
      let chunk: EventToAppend[] = [];
      for await (const text of lines(options.file)) {
        const result = parseEventLine(text);
        // Validated above; a file changed in between is caught here and rolls everything back.
        if (!result.ok) throw new Error(`the file changed during the import: ${result.reason}`);
        if (result.event === null) continue;
        chunk.push(toEventToAppend(result.event, options.now));
        if (chunk.length >= CHUNK) {
          await appendEvents(tx, repository.id, chunk);
          count += chunk.length;
          chunk = [];
        }
      }
      if (chunk.length > 0) await appendEvents(tx, repository.id, chunk);
      return count + chunk.length;
    },
    { lockTimeoutMs: 60_000 },
  );
  return { imported, problems: [], badLines: 0 };
}
