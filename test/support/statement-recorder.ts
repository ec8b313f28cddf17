import type pg from 'pg';

export interface Statement {
  text: string;
  values: unknown[];
}

export interface RecordedStatement extends Statement {
  /** Its round trip (from 0): the statements sent while none waited for an answer, until every one is answered. */
  trip: number;
}

/**
 * Records the statements the application sends through a pool while `recording` is on, by
 * wrapping `query` of every client it hands out (Kysely checks a client out per query).
 */
export class StatementRecorder {
  recording = false;
  readonly statements: RecordedStatement[] = [];
  private waiting = 0;
  private trip = -1;
  private readonly wrapped = new WeakSet<object>();

  constructor(pool: pg.Pool) {
    pool.on('acquire', (client) => this.wrap(client));
  }

  private wrap(client: pg.PoolClient) {
    if (this.wrapped.has(client)) return;
    this.wrapped.add(client);
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (!this.recording) return original(...args);
      const [first, second] = args;
      const config = typeof first === 'string' ? { text: first, values: second } : (first as pg.QueryConfig);
      if (this.waiting === 0) this.trip++;
      const values = config.values as unknown[] | undefined;
      this.statements.push({ text: config.text, values: [...(values ?? [])], trip: this.trip });
      this.waiting++;
      return Promise.resolve(original(...args)).finally(() => {
        this.waiting--;
      });
    };
  }

  /** The statements `fn` sends. */
  async capture(fn: () => Promise<unknown>): Promise<RecordedStatement[]> {
    this.statements.length = 0;
    this.trip = -1;
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
