/**
 * The simulator's future: callbacks due at virtual times, fired in time order and, at equal
 * times, in the order they were scheduled (so a run is deterministic). A binary min-heap.
 */
export class Agenda {
  private readonly heap: Entry[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  schedule(at: number, fire: () => void): void {
    this.heap.push({ at, seq: ++this.seq, fire });
    this.up(this.heap.length - 1);
  }

  /** Time of the next callback, or null when nothing is left. */
  peek(): number | null {
    return this.heap[0]?.at ?? null;
  }

  /** Removes and returns the next entry. */
  pop(): { at: number; fire: () => void } | null {
    const top = this.heap[0];
    if (top === undefined) return null;
    const last = this.heap.pop()!;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      this.down(0);
    }
    return top;
  }

  private up(index: number): void {
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(this.heap[i]!, this.heap[parent]!)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(index: number): void {
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < this.heap.length && before(this.heap[left]!, this.heap[smallest]!)) smallest = left;
      if (right < this.heap.length && before(this.heap[right]!, this.heap[smallest]!)) smallest = right;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }

  private swap(a: number, b: number): void {
    const t = this.heap[a]!;
    this.heap[a] = this.heap[b]!;
    this.heap[b] = t;
  }
}

interface Entry {
  at: number;
  seq: number;
  fire: () => void;
}

function before(a: Entry, b: Entry): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
