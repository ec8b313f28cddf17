import type { PullRequestPlace } from './pull-request-place.ts';

/** 1st, 2nd, 3rd, 4th … 11th, 12th, 13th, 21st. */
export function ordinal(n: number): string {
  const mod100 = n % 100;
  const suffix = mod100 >= 11 && mod100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** "~14:05" today, "~Tue 14:05" on another day (local time of `now`'s zone). */
export function clockTime(iso: string, now: Date = new Date()): string {
  const at = new Date(iso);
  const hm = at.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  const sameDay = at.toDateString() === now.toDateString();
  return sameDay ? `~${hm}` : `~${at.toLocaleDateString('en-GB', { weekday: 'short' })} ${hm}`;
}

/** The estimate: "~14:05", with the p90 when the server gives one ("~14:05–14:40"); "no ETA". */
export function etaText(place: Pick<PullRequestPlace, 'eta' | 'etaP90'>, now: Date = new Date()): string {
  if (!place.eta) return 'no ETA';
  const p50 = clockTime(place.eta, now);
  if (!place.etaP90) return p50;
  return `${p50}–${clockTime(place.etaP90, now).slice(1)}`;
}

/** A pull request row's description: "3rd · running · ~14:05". */
export function placeLine(place: PullRequestPlace, now: Date = new Date()): string {
  return `${ordinal(place.position)} · ${place.state} · ${etaText(place, now)}`;
}

/** The status bar's words for my pull request: "#123 · 3rd · ~14:05". */
export function statusBarLine(place: PullRequestPlace, now: Date = new Date()): string {
  return `#${place.pr.number} · ${ordinal(place.position)} · ${etaText(place, now)}`;
}

/** "updated 12 s ago", "updated 3 min ago". */
export function updatedAgo(fetchedAt: Date, now: Date = new Date()): string {
  const s = Math.max(0, Math.round((now.getTime() - fetchedAt.getTime()) / 1000));
  return s < 60 ? `updated ${s} s ago` : `updated ${Math.floor(s / 60)} min ago`;
}
