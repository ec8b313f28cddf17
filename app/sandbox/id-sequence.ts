/**
 * GitHub's numeric ids, one counter per kind of object, each starting in its own range so an
 * id read in a log says what it is and never collides with another kind. Deterministic: the
 * same run hands out the same ids.
 */
const firstIds = {
  account: 1001,
  repository: 700001,
  installation: 40001,
  pull: 300000001,
  review: 80000001,
  comment: 9000001,
  reaction: 60000001,
  label: 5000001,
  checkSuite: 20000001,
  checkRun: 30000001,
  status: 10000001,
  workflowRun: 90000001,
} as const;

export type IdKind = keyof typeof firstIds;

export class IdSequence {
  private readonly next = new Map<IdKind, number>();

  take(kind: IdKind): number {
    const id = this.next.get(kind) ?? firstIds[kind];
    this.next.set(kind, id + 1);
    return id;
  }

  /** The next id of each kind used so far, for a snapshot. */
  toSnapshot(): Partial<Record<IdKind, number>> {
    return Object.fromEntries(this.next);
  }

  /** Continues a snapshot's sequences: a restored sandbox never hands out an id twice. */
  restore(next: Partial<Record<IdKind, number>>): void {
    this.next.clear();
    for (const kind of Object.keys(firstIds) as IdKind[]) {
      const id = next[kind];
      if (id !== undefined) this.next.set(kind, id);
    }
  }
}
