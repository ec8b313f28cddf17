import { once } from 'node:events';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { EventType } from '../../../shared/schemas/event-types.ts';
import { eventTypes } from '../../../shared/schemas/event-types.ts';
import { exampleMetadata, exampleMetadataVariants } from '../../support/event-examples.ts';

/*
 * Deterministic JSONL histories for the log benchmark: the same parameters give byte-identical
 * files, so they are generated once into `.bench-data/` and reused.
 */

/** Bump when the generated content changes, so stale files are not reused. */
const GENERATOR_VERSION = 1;

export const OWNER = 'octo-org';
export const BUSIEST = 'busy';
export const PULL_REQUESTS = 5_000;
const SPAN_MS = 90 * 24 * 3600 * 1000;
const START_MS = Date.parse('2026-08-01T00:00:00Z');

/**
 * A rough merge-queue installation: queue lifecycle events and rule actions dominate, admin
 * events (pauses, freezes, CI issue bookkeeping) are rare. Weights per mille of events.
 */
const typeWeights: Record<EventType, number> = {
  'action.assign': 20,
  'action.backport': 8,
  'action.close': 10,
  'action.comment': 60,
  'action.copy': 3,
  'action.delete_head_branch': 20,
  'action.dismiss_reviews': 10,
  'action.edit': 10,
  'action.github_actions': 10,
  'action.label': 70,
  'action.merge': 15,
  'action.post_check': 90,
  'action.queue.batch_bisection_end': 4,
  'action.queue.batch_bisection_start': 4,
  'action.queue.change': 85,
  'action.queue.checks.change': 75,
  'action.queue.checks_end': 50,
  'action.queue.checks_not_started': 5,
  'action.queue.checks_stalled': 0,
  'action.queue.merge_verified': 0,
  'action.queue.checks_start': 55,
  'action.queue.enter': 60,
  'action.queue.leave': 60,
  'action.queue.merged': 45,
  'action.rebase': 15,
  'action.refresh': 20,
  'action.request_reviews': 25,
  'action.requeue': 8,
  'action.review': 15,
  'action.squash': 3,
  'action.unqueue': 8,
  'action.update': 30,
  'ci_insights.job_retried': 25,
  'ci_issue.created': 4,
  'ci_issue.linked': 10,
  'ci_issue.merged': 1,
  'ci_issue.renamed': 1,
  'ci_issue.reopened': 1,
  'ci_issue.resolved': 3,
  'ci_issue.unresolved': 1,
  'command.dequeue': 8,
  'command.queue': 35,
  'command.requeue': 6,
  'queue.pause.create': 1,
  'queue.pause.delete': 1,
  'queue.pause.update': 1,
  'scheduled_freeze.create': 1,
  'scheduled_freeze.delete': 1,
  'scheduled_freeze.update': 1,
};

const totalWeight = eventTypes.reduce((sum, t) => sum + typeWeights[t], 0);

/** The expected share of a type among generated events. */
export function typeShare(type: EventType): number {
  return typeWeights[type] / totalWeight;
}

// Cumulative weights for sampling.
const cumulative: number[] = [];
{
  let acc = 0;
  for (const t of eventTypes) {
    acc += typeWeights[t];
    cumulative.push(acc / totalWeight);
  }
}

function pickType(u: number): EventType {
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (u < cumulative[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return eventTypes[lo]!;
}

/** mulberry32: a small, fast, seeded generator of floats in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const repositoryWide = (t: EventType) =>
  t.startsWith('queue.pause.') ||
  t.startsWith('scheduled_freeze.') ||
  (t.startsWith('ci_issue.') && t !== 'ci_issue.linked');

function triggerOf(t: EventType, u: number): string {
  if (t.startsWith('command.')) return `Command: @${u < 0.5 ? 'alice' : 'bob'} ${t.slice('command.'.length)}`;
  if (t.startsWith('queue.pause.')) return 'API: pause by key "oncall"';
  if (t.startsWith('scheduled_freeze.')) return 'API: freeze by key "release-manager"';
  if (t.startsWith('ci_issue.') || t.startsWith('ci_insights.')) return 'CI Insights';
  if (t.startsWith('action.queue.')) return 'merge queue internal';
  return u < 0.7 ? 'Rule: default' : u < 0.9 ? 'Rule: automatic merge' : 'Rule: label stale pull requests';
}

// Pre-serialized metadata per type (and the failing checks_end variant): the examples are
// constant, so serializing each once keeps generation fast.
const metadataJson = new Map<EventType, string>(
  eventTypes.map((t) => [t, JSON.stringify(exampleMetadata(t))]),
);
const failedChecksEnd = JSON.stringify(exampleMetadataVariants('action.queue.checks_end')[1]);

/** One JSONL line; `i` of `n` places the event in the 90-day window and the PR range. */
function line(random: () => number, t: number, i: number, n: number): string {
  const type = pickType(random());
  const u = random();
  let pullRequest: number | null = null;
  let baseRef: string | null = null;
  if (!repositoryWide(type)) {
    // Pull request numbers grow with time, with a tail of older ones still active.
    const center = 1 + Math.floor((i / n) * (PULL_REQUESTS - 250));
    pullRequest = Math.min(PULL_REQUESTS, center + Math.floor(random() * 250));
    baseRef = pullRequest % 7 === 0 ? 'release' : 'main';
  }
  const metadata =
    type === 'action.queue.checks_end' && random() < 0.2 ? failedChecksEnd : metadataJson.get(type)!;
  return `{"type":"${type}","metadata":${metadata},"trigger":${JSON.stringify(triggerOf(type, u))},"pull_request":${pullRequest},"base_ref":${baseRef === null ? 'null' : `"${baseRef}"`},"received_at":"${new Date(t).toISOString()}"}\n`;
}

async function writeHistory(file: string, count: number, seed: number): Promise<void> {
  const random = rng(seed);
  const meanGap = SPAN_MS / Math.max(1, count);
  const out = createWriteStream(`${file}.tmp`, { encoding: 'utf8', highWaterMark: 1 << 20 });
  let t = START_MS;
  let buffer = '';
  for (let i = 0; i < count; i++) {
    // Increasing received_at with random gaps averaging the window / count.
    t += Math.floor(random() * 2 * meanGap);
    buffer += line(random, t, i, count);
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  }
  out.end(buffer);
  await once(out, 'finish');
  renameSync(`${file}.tmp`, file);
}

export interface HistoryFile {
  file: string;
  owner: string;
  name: string;
  events: number;
}

export interface Dataset {
  dir: string;
  busiest: HistoryFile;
  others: HistoryFile[];
  reused: boolean;
}

/** Sizes of the other repositories: a Zipf-like spread (exponent 0.8) summing exactly to `total`. */
export function otherSizes(total: number, repositories: number): number[] {
  const weights = Array.from({ length: repositories }, (_, k) => 1 / (k + 1) ** 0.8);
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (w / sum) * total);
  const sizes = exact.map(Math.floor);
  let rest = total - sizes.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((x, k) => [x - Math.floor(x), k] as const).sort((a, b) => b[0] - a[0]);
  for (const [, k] of byRemainder) {
    if (rest-- <= 0) break;
    sizes[k]!++;
  }
  return sizes;
}

/** Generates (or reuses) the busiest repository's history and the others'. */
export async function ensureDataset(
  root: string,
  params: { busiest: number; others: number; otherRepositories: number; seed: number },
  log: (msg: string) => void,
): Promise<Dataset> {
  const dir = join(
    root,
    `logs-v${GENERATOR_VERSION}-busy${params.busiest}-other${params.others}x${params.otherRepositories}-seed${params.seed}`,
  );
  const manifestFile = join(dir, 'manifest.json');
  const sizes = otherSizes(params.others, params.otherRepositories);
  const busiest: HistoryFile = {
    file: join(dir, `${BUSIEST}.jsonl`),
    owner: OWNER,
    name: BUSIEST,
    events: params.busiest,
  };
  const others: HistoryFile[] = sizes.map((events, k) => {
    const name = `repo-${String(k + 1).padStart(2, '0')}`;
    return { file: join(dir, `${name}.jsonl`), owner: OWNER, name, events };
  });
  const manifest = JSON.stringify({ version: GENERATOR_VERSION, ...params, sizes }, null, 2);
  if (existsSync(manifestFile) && readFileSync(manifestFile, 'utf8') === manifest) {
    return { dir, busiest, others, reused: true };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  await writeHistory(busiest.file, busiest.events, params.seed);
  log(`generated ${busiest.events.toLocaleString('en')} events of ${OWNER}/${BUSIEST} in ${secs(started)}`);
  for (const [k, other] of others.entries()) {
    await writeHistory(other.file, other.events, params.seed + 1 + k);
  }
  log(
    `generated ${params.others.toLocaleString('en')} events over ${others.length} other repositories (${sizes[0]} … ${sizes.at(-1)} each) in ${secs(started)}`,
  );
  writeFileSync(manifestFile, manifest);
  return { dir, busiest, others, reused: false };
}

function secs(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}
