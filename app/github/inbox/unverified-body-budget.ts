/**
 * The memory webhook bodies may hold together while their signature is not yet known to match.
 * Without a bound, anyone who can reach the endpoint makes it buffer 25 MB per connection
 * (decision 0022). Bodies take bytes as they arrive and give them back once verified or refused; a
 * body that does not fit is refused.
 */
export class UnverifiedBodyBudget {
  private held = 0;

  constructor(readonly maxBytes: number) {}

  get freeBytes(): number {
    return this.maxBytes - this.held;
  }

  /** Takes `bytes` if they fit (true); otherwise takes nothing (false). */
  take(bytes: number): boolean {
    if (this.held + bytes > this.maxBytes) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held -= bytes;
  }
}
