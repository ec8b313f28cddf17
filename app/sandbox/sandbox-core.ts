import type { ChangeLog } from './change-log.ts';
import type { Clock } from './clock.ts';
import type { Account } from './entities.ts';
import type { IdSequence } from './id-sequence.ts';
import type { SandboxEvent } from './sandbox-events.ts';

/** What every family of operations shares: time, ids, the event stream, and what changed. */
export interface SandboxCore {
  readonly clock: Clock;
  readonly ids: IdSequence;
  /** Every change is marked here (events mark themselves): the journal writes what is marked. */
  readonly changes: ChangeLog;
  emit(event: SandboxEvent): void;
}

/** A git author line for an account, dated now on the sandbox clock. */
export function gitPerson(core: SandboxCore, account: Account) {
  return {
    name: account.name,
    email: `${account.id}+${account.login}@users.noreply.github.com`,
    date: new Date(core.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}
