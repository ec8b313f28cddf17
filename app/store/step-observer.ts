import type { QueueInput } from '../queue/inputs.ts';
import type { Db } from './database.ts';
import type { EventToAppend } from './events.ts';

/** A step that committed: what went in, what the engine recorded, and how long the transaction took. */
export interface CommittedStep {
  repositoryId: string;
  /** The inputs stepped (`within`'s included). */
  inputs: readonly QueueInput[];
  events: readonly EventToAppend[];
  /** From the start of the transaction (the repository's lock included) to its commit. */
  seconds: number;
}

export type StepObserver = (step: CommittedStep) => void;

// One observer per database handle, as the state cache: two instances in a test never mix.
const observers = new WeakMap<Db, StepObserver>();

/**
 * Tells `observer` of every step committed through `db` (the metrics count merges, ejections and
 * batch outcomes from the events, and time the steps). One observer per handle; null removes it.
 * It runs after the commit and must not throw: a failure of the observer never fails a step.
 */
export function observeSteps(db: Db, observer: StepObserver | null): void {
  if (observer === null) observers.delete(db);
  else observers.set(db, observer);
}

export function reportCommittedStep(db: Db, step: CommittedStep): void {
  const observer = observers.get(db);
  if (observer === undefined) return;
  try {
    observer(step);
  } catch {
    // Counting is never worth a failed step.
  }
}
