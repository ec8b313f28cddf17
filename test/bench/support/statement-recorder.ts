import type pg from 'pg';

export interface Statement {
  text: string;
  values: unknown[];
}

/**
 * Records the statements the application sends through a pool while `recording` is on, by
 * wrapping `query` of every client it hands out (Kysely checks a client out per query).
 */
export class StatementRecorder {
  recording = false;
  readonly statements: Statement[] = [];
  private readonly wrapped = new WeakSet<object>();

  constructor(pool: pg.Pool) {
    pool.on('acquire', (client) => this.wrap(client));
  }

  private wrap(client: pg.PoolClient) {
    if (this.wrapped.has(client)) return;
    this.wrapped.add(client);
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (this.recording) {
        const [first, second] = args;
        if (typeof first === 'string') {
          this.statements.push({ text: first, values: Array.isArray(second) ? [...second] : [] });
        } else if (first && typeof first === 'object' && 'text' in first) {
          const config = first as { text: string; values?: unknown[] };
          this.statements.push({ text: config.text, values: [...(config.values ?? [])] });
        }
      }
      return original(...args);
    };
  }

  /** The statements `fn` sends. */
  async capture(fn: () => Promise<unknown>): Promise<Statement[]> {
    this.statements.length = 0;
    this.recording = true;
    try {
      await fn();
    } finally {
      this.recording = false;
    }
    return [...this.statements];
  }
}

/** Whitespace-insensitive form of a statement's text, for comparisons and printing. */
export const normalizeSql = (text: string) => text.replace(/\s+/g, ' ').replace(/\( /g, '(').trim();
