/**
 * Runs `pass` again while it returns true ("more to do"), at most `limit` times. Each caller
 * shows, where it calls this, why `limit` passes can never all ask for more: reaching the limit
 * means that argument no longer holds (an engine bug), and the step throws, naming the loop,
 * rather than stopping silently with a state half settled.
 */
export function repeatUntilDone(loop: string, limit: number, pass: () => boolean): void {
  for (let passes = 0; passes < limit; passes++) if (!pass()) return;
  throw new Error(`engine loop "${loop}" still had work after ${limit} passes, which its bound rules out`);
}
