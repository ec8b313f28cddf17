import type { EffectFailed } from './inputs.ts';
import { handleVerificationFailed } from './integrity.ts';
import type { Transition } from './transition.ts';

/** How many failed effects the state keeps: the status shows the recent ones, the log has them all. */
export const FAILED_EFFECTS_KEPT = 20;

/** An effect failed for good: remembered (the most recent FAILED_EFFECTS_KEPT) for the status. */
export function handleEffectFailed(t: Transition, input: EffectFailed): void {
  const { key, effect, pullRequests, message } = input;
  const kept = [...(t.state.failedEffects ?? []), { key, effect, pullRequests, message, at: t.nowIso }];
  t.state = { ...t.state, failedEffects: kept.slice(-FAILED_EFFECTS_KEPT) };
  if (effect === 'verify_merge') handleVerificationFailed(t, input);
}
