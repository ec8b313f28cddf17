import type { Db } from '../store/database.ts';
import { findMissingMigrations } from '../store/migration-status.ts';

/** A background loop readiness watches: started and not stopped. */
export interface WatchedLoop {
  readonly running: boolean;
}

export interface ReadinessOptions {
  db: Db;
  /** The loops that must run for the instance to do its work, by the name the answer gives. */
  loops: Readonly<Record<string, WatchedLoop>>;
  /** How long the database may take to answer before it counts as unreachable (default 2 s). */
  timeoutMs?: number;
  /** Answers within this long of a check reuse it: a flood of probes checks once (default 1 s). */
  maxAgeMs?: number;
}

export interface CheckResult {
  ok: boolean;
  /** What is wrong, in words, when not ok. */
  detail?: string;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, CheckResult>;
}

/**
 * Whether this instance can do its work: the database answers, every migration this code ships is
 * applied, and the delivery processor, the outbox worker and the scheduler run. The database is
 * asked once per `maxAgeMs` at most (probes that come meanwhile share the answer), so readiness
 * probes never load it.
 */
export class Readiness {
  private checking: Promise<CheckResult[]> | null = null;
  private last: { at: number; database: CheckResult; migrations: CheckResult } | null = null;

  constructor(private readonly options: ReadinessOptions) {}

  async check(): Promise<ReadinessReport> {
    const { database, migrations } = await this.checkDatabase();
    const checks: Record<string, CheckResult> = { database, migrations };
    for (const [name, loop] of Object.entries(this.options.loops)) {
      checks[name] = loop.running ? { ok: true } : { ok: false, detail: 'not running' };
    }
    return { ready: Object.values(checks).every((c) => c.ok), checks };
  }

  private async checkDatabase(): Promise<{ database: CheckResult; migrations: CheckResult }> {
    const maxAgeMs = this.options.maxAgeMs ?? 1_000;
    if (this.last !== null && performance.now() - this.last.at < maxAgeMs) return this.last;
    this.checking ??= this.askDatabase().finally(() => {
      this.checking = null;
    });
    const [database, migrations] = (await this.checking) as [CheckResult, CheckResult];
    this.last = { at: performance.now(), database, migrations };
    return this.last;
  }

  private async askDatabase(): Promise<CheckResult[]> {
    const timeoutMs = this.options.timeoutMs ?? 2_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      const missing = await Promise.race([
        findMissingMigrations(this.options.db),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      return [
        { ok: true },
        missing.length === 0 ? { ok: true } : { ok: false, detail: `not applied: ${missing.join(', ')}` },
      ];
    } catch (error) {
      return [
        { ok: false, detail: `unreachable: ${(error as Error).message}`.slice(0, 300) },
        { ok: false, detail: 'unknown: the database did not answer' },
      ];
    } finally {
      clearTimeout(timer);
    }
  }
}
