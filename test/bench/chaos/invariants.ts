import type { Commit } from '../../../app/sandbox/commit-graph.ts';
import type { PullRequest, Repository } from '../../../app/sandbox/entities.ts';
import type { DatabaseState, EventRow, JournalRecord, SandboxState } from './final-state.ts';

/*
 * The invariants of the crash test, checked on what the product and its sandbox left behind
 * (numbers as in the issue "Hardening"):
 *
 * 1. no double merge: no pull request merged twice, none whose commits land twice on the base;
 * 2. `action.queue.merged` events and the sandbox's merged pull requests, one to one;
 * 3. no untested tree on the base: every commit the queue put on main has a tree that passed CI,
 *    or is a step inside a run of the queue's merges that ends on a tree that passed (the merge
 *    method merges a tested batch one pull request at a time); a run that stops on an untested
 *    tree before its batch's last merge (an outside push came between, or the product stopped)
 *    is a note, one that stops there after the batch's last merge a violation;
 * 4. no person's pull request closed or changed by the app, other than the merge of a queued one;
 * 5. no delivery lost (each one the sandbox saw acknowledged is in webhook_deliveries), no event
 *    duplicated or lost (identities, sessions' enter/merged/leave, one command event per command);
 * 6. time monotonic: received_at never goes back in id order, the sandbox clock never rewinds
 *    across a restart (its first reading in a start against every time seen before: readings,
 *    webhook and answer bodies, events read over the API) nor within one;
 * 7. (the sandbox's side) every write the sandbox acknowledged is in its persisted state: a lost
 *    one is how 2 and 4 happen (a lost draft's number handed to a person's pull request).
 */

export type InvariantId = 1 | 2 | 3 | 4 | 5 | 6 | 7;

export const invariantNames: Record<InvariantId, string> = {
  1: 'no double merge',
  2: 'merged events <-> merged PRs',
  3: 'no untested tree on main',
  4: "persons' PRs untouched",
  5: 'no delivery/event lost or duplicated',
  6: 'time monotonic',
  7: 'sandbox keeps acknowledged writes',
};

export interface Violation {
  invariant: InvariantId;
  what: string;
}

/** One start of the product, as the bench saw it. */
export interface LifeSample {
  index: number;
  /** The sandbox clock stored before this start (what it resumes from), or null on the first. */
  resumeNow: number | null;
  /** The latest sandbox time seen while it ran: newest event's received_at over the API. */
  apiObservedMax: number | null;
}

export interface CheckInput {
  sandbox: SandboxState;
  db: DatabaseState;
  /** null: the observer was off (5's delivery check and 7 are then skipped). */
  journal: JournalRecord[] | null;
  lives: LifeSample[];
  /** Open pull requests of the queue read just before the final stop, and the newest event id before that read. */
  finalQueue: { numbers: Set<number>; newestEventIdBefore: number } | null;
  repository: { owner: string; name: string };
  botLogin: string;
  /** The events the app stores (app/github/inbox/delivery-step.ts); others are answered 200 "ignored". */
  handledEvents: ReadonlySet<string>;
}

export interface CheckResult {
  violations: Violation[];
  figures: {
    pullRequests: number;
    personPullRequests: number;
    mergedInSandbox: number;
    mergedEvents: number;
    events: number;
    deliveriesStored: number;
    deliveriesAcknowledged: number | null;
    deliveriesIgnored: number;
    sandboxWritesAcknowledged: number | null;
    queueCommitsOnMain: number;
    passedTrees: number;
  };
  notes: string[];
}

const iso = (ms: number) => new Date(ms).toISOString();
const commandPattern = /^@trainyard\s+(queue|dequeue|requeue)\b/i;

export function checkInvariants(input: CheckInput): CheckResult {
  const { sandbox, db, journal, botLogin } = input;
  const violations: Violation[] = [];
  const notes: string[] = [];
  const add = (invariant: InvariantId, what: string) => violations.push({ invariant, what });
  const repo = sandbox.github.repository(input.repository.owner, input.repository.name);
  if (!repo) throw new Error(`the sandbox has no ${input.repository.owner}/${input.repository.name}`);
  const { graph } = repo;
  const pulls = [...repo.pulls.values()].sort((a, b) => a.number - b.number);
  const isPerson = (p: PullRequest) => p.user.type === 'User';
  const persons = pulls.filter(isPerson);
  const events = db.events;
  const byType = (type: string) => events.filter((e) => e.type === type);
  const sessionOf = (e: EventRow) => (e.metadata['session_id'] as string | null | undefined) ?? null;
  const enters = byType('action.queue.enter');
  const mergedEvents = byType('action.queue.merged');
  const leaves = byType('action.queue.leave');
  const commandEvents = events.filter((e) => e.type.startsWith('command.'));
  const queuedNumbers = new Set(enters.map((e) => e.pullRequest).filter((n) => n !== null));
  const personComments = [...repo.comments.values()].filter(
    (c) => c.user.type === 'User' && commandPattern.test(c.body.trim()),
  );
  const commentedQueue = new Set(
    personComments.filter((c) => /queue/i.test(c.body)).map((c) => c.issueNumber),
  );
  const everQueued = (n: number) => queuedNumbers.has(n) || commentedQueue.has(n);
  const acknowledged = (journal ?? []).filter(
    (r): r is Extract<JournalRecord, { k: 'w' }> => r.k === 'w' && r.s >= 200 && r.s < 300,
  );
  const pathOf = (u: string) => u.split('?')[0]!;
  const repoPath = `/repos/${repo.owner.login}/${repo.name}`.toLowerCase();
  const ownWrites = acknowledged.filter((w) => pathOf(w.u).toLowerCase().startsWith(repoPath));
  const rel = (w: { u: string }) => pathOf(w.u).slice(repoPath.length);
  const lifeOf = (w: { life: number }) => `life ${w.life + 1}`;

  // ---- 1. no double merge ----
  const mergedCount = new Map<number, EventRow[]>();
  for (const e of mergedEvents) {
    if (e.pullRequest === null) continue;
    mergedCount.set(e.pullRequest, [...(mergedCount.get(e.pullRequest) ?? []), e]);
  }
  for (const [n, list] of mergedCount) {
    if (list.length > 1)
      add(
        1,
        `#${n} has ${list.length} action.queue.merged events: ${list.map((e) => `id ${e.id} at ${iso(e.receivedAt)} session ${sessionOf(e)}`).join('; ')}`,
      );
  }
  const chain = firstParentChain(repo);
  const landings = new Map<number, string[]>();
  {
    const onMain = new Set<string>();
    for (const commit of chain) {
      const brought: Commit[] = [];
      const stack = [commit.sha];
      while (stack.length > 0) {
        const sha = stack.pop()!;
        if (onMain.has(sha)) continue;
        onMain.add(sha);
        const c = graph.get(sha);
        if (!c) continue;
        brought.push(c);
        stack.push(...c.parents);
      }
      const prs = new Set<number>();
      for (const c of brought) {
        const match = /^pr-(\d+)-/.exec(c.label) ?? /^(?:squash|rebase)-pr-(\d+)/.exec(c.label);
        if (match) prs.add(Number(match[1]));
      }
      for (const n of prs) landings.set(n, [...(landings.get(n) ?? []), commit.label]);
    }
  }
  for (const [n, labels] of landings) {
    if (labels.length > 1)
      add(1, `#${n}'s commits land on ${repo.defaultBranch} ${labels.length} times: ${labels.join(', ')}`);
  }
  const mergeAcks = new Map<number, string[]>();
  for (const w of ownWrites) {
    const match = /^\/pulls\/(\d+)\/merge$/.exec(rel(w));
    if (w.m === 'PUT' && match) {
      const n = Number(match[1]);
      mergeAcks.set(n, [
        ...(mergeAcks.get(n) ?? []),
        `${String(w.b?.['sha'] ?? '?').slice(0, 10)} (${lifeOf(w)})`,
      ]);
    }
  }
  for (const [n, shas] of mergeAcks) {
    if (shas.length > 1)
      add(1, `the sandbox acknowledged ${shas.length} merges of #${n}: ${shas.join(', ')}`);
  }

  // ---- 2. merged events <-> merged pull requests ----
  const mergedInSandbox = pulls.filter((p) => p.merged);
  for (const [n, list] of mergedCount) {
    const pull = repo.pulls.get(n);
    if (!pull) add(2, `#${n} has a merged event (id ${list[0]!.id}) but no such pull request in the sandbox`);
    else if (!pull.merged) {
      const acked = mergeAcks.get(n);
      add(
        2,
        `#${n} has a merged event (id ${list[0]!.id} at ${iso(list[0]!.receivedAt)}) but is ${pull.state} and not merged in the sandbox` +
          (acked ? `; the sandbox had acknowledged its merge ${acked.join(', ')}` : '') +
          (pull.user.type === 'Bot' ? ' (the number is now the app’s own pull request)' : ''),
      );
    }
  }
  for (const pull of mergedInSandbox) {
    if (!isPerson(pull)) {
      add(2, `#${pull.number}, the app's own pull request (${pull.head}), is merged in the sandbox`);
      continue;
    }
    if (!mergedCount.has(pull.number))
      add(
        2,
        `#${pull.number} is merged in the sandbox (by ${pull.mergedBy?.login ?? '?'} at ${pull.mergedAt === null ? '?' : iso(pull.mergedAt)}, ${pull.mergeCommitSha?.slice(0, 10)}) but has no action.queue.merged event`,
      );
  }

  // ---- 3. no untested tree on main ----
  const actionsAppId = sandbox.github.actionsApp.id;
  const passedTrees = new Set<string>();
  for (const run of repo.checkRuns.values()) {
    if (run.app.id !== actionsAppId || run.status !== 'completed' || run.conclusion !== 'success') continue;
    const commit = graph.get(run.headSha);
    if (commit) passedTrees.add(commit.treeSha);
  }
  // The batch each merge came from: the pull requests (parents first) of the successful
  // checks_end the engine wrote for it with its merged event.
  const batchOfMerge = new Map<number, number[]>();
  for (const merged of mergedEvents) {
    if (merged.pullRequest === null) continue;
    const end = events.findLast(
      (e) =>
        e.id < merged.id &&
        e.type === 'action.queue.checks_end' &&
        e.pullRequest === merged.pullRequest &&
        e.metadata['checks_conclusion'] === 'success',
    );
    const numbers = end?.metadata['pull_request_numbers'];
    if (Array.isArray(numbers)) batchOfMerge.set(merged.pullRequest, numbers as number[]);
  }
  const isQueueCommit = (c: Commit) => c.author.name === botLogin || c.committer.name === botLogin;
  let queueCommits = 0;
  for (let i = 1; i < chain.length; ) {
    if (!isQueueCommit(chain[i]!)) {
      i++;
      continue;
    }
    let end = i;
    while (end + 1 < chain.length && isQueueCommit(chain[end + 1]!)) end++;
    const run = chain.slice(i, end + 1);
    queueCommits += run.length;
    let lastPassed = -1;
    run.forEach((c, k) => {
      if (passedTrees.has(c.treeSha)) lastPassed = k;
    });
    const untested = run.slice(lastPassed + 1);
    if (untested.length > 0) {
      const after = chain[end + 1];
      const last = untested.at(-1)!;
      const lastNumber = Number(/^merge-pr-(\d+)/.exec(last.label)?.[1] ?? Number.NaN);
      const batch = batchOfMerge.get(lastNumber);
      const ended = after ? `by ${after.label} (${after.author.name})` : "at the branch's head";
      const describe =
        `${untested.map((c) => `${c.label} (tree ${c.treeSha.slice(0, 10)})`).join(', ')} on ${repo.defaultBranch}: no CI run passed on ${untested.length > 1 ? 'these trees' : 'this tree'}; ` +
        `run of queue merges ${run.map((c) => c.label).join(' ')} on ${chain[i - 1]!.label} ended ${ended}`;
      if (batch && batch.at(-1) !== lastNumber)
        // One pull request at a time: the batch's other merges were still to come when someone
        // pushed (the queue then rebuilds), or when the product stopped.
        notes.push(
          `3: ${describe}; #${lastNumber} is not the last of its tested batch [${batch.join(', ')}] (intermediate)`,
        );
      else
        add(
          3,
          `${describe}${batch ? `; #${lastNumber} ended its batch, tested as [${batch.join(', ')}]` : ''}`,
        );
    }
    i = end + 1;
  }

  // ---- 4. persons' pull requests untouched ----
  const expectedTitle = /^(Update|Hotfix) .+ \(change (\d+)\)$/;
  const personHeads = new Map(persons.map((p) => [p.head, p]));
  for (const pull of persons) {
    const where = `#${pull.number} (${pull.user.login}, ${pull.head})`;
    if (pull.state === 'closed' && !pull.merged)
      add(
        4,
        `${where} is closed without being merged (closed at ${pull.closedAt === null ? '?' : iso(pull.closedAt)})`,
      );
    if (pull.merged && !everQueued(pull.number))
      add(4, `${where} was merged (by ${pull.mergedBy?.login ?? '?'}) but never queued`);
    const title = expectedTitle.exec(pull.title);
    if (!title) add(4, `${where}'s title was changed: "${pull.title}"`);
    else if (pull.body !== `Change ${title[2]} of the sandbox's demo workload.`)
      add(4, `${where}'s body was changed: "${pull.body.slice(0, 80)}"`);
    if (pull.base !== repo.defaultBranch) add(4, `${where}'s base was changed to ${pull.base}`);
    if (pull.draft) add(4, `${where} was made a draft`);
    const hotfix = pull.title.startsWith('Hotfix');
    const labels = pull.labels.map((l) => l.toLowerCase());
    if (labels.some((l) => l !== 'hotfix') || labels.includes('hotfix') !== hotfix)
      add(4, `${where}'s labels were changed: [${pull.labels.join(', ')}]`);
    const head = graph.get(pull.headSha);
    if (head && !/^pr-\d+-/.test(head.label))
      add(4, `${where}'s head is ${head.label}, not one of its author's commits`);
    if (head?.label.startsWith(`pr-${pull.number}-update`) && !everQueued(pull.number))
      add(4, `${where}'s branch was updated by ${head.author.name} though never queued`);
    if (pull.state === 'open' && repo.branches.get(pull.head) !== pull.headSha)
      add(4, `${where} is open but its branch is ${repo.branches.get(pull.head) ?? 'deleted'}`);
  }
  for (const w of ownWrites) {
    const path = rel(w);
    const pullMatch = /^\/(?:pulls|issues)\/(\d+)(\/.*)?$/.exec(path);
    if (pullMatch) {
      const n = Number(pullMatch[1]);
      const sub = pullMatch[2] ?? '';
      const target = repo.pulls.get(n);
      // Who the pull request was when the sandbox answered: its answer names the author.
      const author = typeof w.b?.['user'] === 'string' ? (w.b['user'] as string) : null;
      const personAtTheTime =
        author !== null ? author.toLowerCase() !== botLogin.toLowerCase() : target ? isPerson(target) : false;
      if (!personAtTheTime) continue;
      if (sub === '/comments' || sub.startsWith('/reactions')) continue;
      if (sub === '/merge' && everQueued(n)) continue;
      if (sub === '/update-branch' && everQueued(n)) continue;
      if (sub === '' && w.m === 'PATCH')
        add(
          4,
          `the app edited ${target && isPerson(target) ? `${target.user.login}'s` : "a person's"} #${n} (PATCH, answer: state ${String(w.b?.['state'])}, author ${author}) in ${lifeOf(w)}`,
        );
      else add(4, `the app wrote ${w.m} ${path} on ${author ?? 'a person'}'s #${n} in ${lifeOf(w)}`);
      continue;
    }
    const refMatch = /^\/git\/refs\/heads\/(.+)$/.exec(path);
    if (refMatch) {
      const branch = decodeURIComponent(refMatch[1]!);
      const owner = personHeads.get(branch);
      if (owner)
        add(
          4,
          `the app wrote ${w.m} refs/heads/${branch}, the branch of ${owner.user.login}'s #${owner.number}, in ${lifeOf(w)}`,
        );
    }
  }

  // ---- 5. no delivery lost; no event duplicated or lost ----
  const stored = new Set(db.deliveries.map((d) => d.id));
  let deliveriesAcknowledged: number | null = null;
  let deliveriesIgnored = 0;
  if (journal) {
    const acks = journal.filter(
      (r): r is Extract<JournalRecord, { k: 'd' }> =>
        r.k === 'd' && r.status !== null && r.status >= 200 && r.status < 300,
    );
    const ids = new Map(acks.map((a) => [a.id, a]));
    deliveriesAcknowledged = ids.size;
    for (const [id, ack] of ids) {
      // An event the app does not subscribe to is answered 200 "ignored" and not stored (GitHub would not send it).
      if (ack.event !== undefined && !input.handledEvents.has(ack.event)) {
        deliveriesIgnored++;
        continue;
      }
      if (!stored.has(id))
        add(
          5,
          `delivery ${id} (${ack.event}${ack.action ? `.${ack.action}` : ''}${ack.pr ? ` #${ack.pr}` : ''}) was answered ${ack.status} in ${lifeOf(ack)} but is not in webhook_deliveries`,
        );
    }
  }
  // The sandbox's own record of delivered webhooks, if it keeps one.
  for (const d of persistedDelivered(sandbox)) {
    if (!stored.has(d.id))
      add(
        5,
        `delivery ${d.id} (${d.event}) is delivered per the sandbox's state but not in webhook_deliveries`,
      );
  }
  const exact = new Map<string, EventRow[]>();
  for (const e of events) {
    const key = `${e.type}|${e.pullRequest}|${e.receivedAt}|${JSON.stringify(e.metadata)}`;
    exact.set(key, [...(exact.get(key) ?? []), e]);
  }
  for (const list of exact.values()) {
    if (list.length > 1)
      add(
        5,
        `${list.length} identical ${list[0]!.type} events for #${list[0]!.pullRequest} at ${iso(list[0]!.receivedAt)}: ids ${list.map((e) => e.id).join(', ')}`,
      );
  }
  interface Session {
    enter: EventRow[];
    merged: EventRow[];
    leave: EventRow[];
  }
  const sessions = new Map<string, Session>();
  const sessionFor = (id: string) => {
    let s = sessions.get(id);
    if (!s) {
      s = { enter: [], merged: [], leave: [] };
      sessions.set(id, s);
    }
    return s;
  };
  for (const e of enters) sessionFor(sessionOf(e) ?? `?${e.id}`).enter.push(e);
  for (const e of mergedEvents) sessionFor(sessionOf(e) ?? `?${e.id}`).merged.push(e);
  for (const e of leaves) sessionFor(sessionOf(e) ?? `?${e.id}`).leave.push(e);
  for (const [id, s] of sessions) {
    const pr = (s.enter[0] ?? s.leave[0] ?? s.merged[0])?.pullRequest;
    const where = `session ${id.slice(0, 8)} of #${pr}`;
    if (s.enter.length === 0)
      add(
        5,
        `${where} has no action.queue.enter (leave/merged ids ${[...s.leave, ...s.merged].map((e) => e.id).join(', ')})`,
      );
    if (s.enter.length > 1)
      add(5, `${where} entered ${s.enter.length} times (ids ${s.enter.map((e) => e.id).join(', ')})`);
    if (s.leave.length > 1)
      add(5, `${where} left ${s.leave.length} times (ids ${s.leave.map((e) => e.id).join(', ')})`);
    if (s.merged.length > 1) add(5, `${where} has ${s.merged.length} merged events`);
    const leave = s.leave[0];
    const merged = s.merged[0];
    if (merged && leave?.metadata['merged'] !== true)
      add(
        5,
        `${where} has a merged event (id ${merged.id}) but ${leave ? `left with merged=false (id ${leave.id})` : 'no leave'}`,
      );
    if (leave && leave.metadata['merged'] === true && !merged)
      add(5, `${where} left merged (id ${leave.id}) without an action.queue.merged event`);
    const enter = s.enter[0];
    if (enter && leave && leave.id < enter.id)
      add(5, `${where} left (id ${leave.id}) before it entered (id ${enter.id})`);
    if (enter && merged && merged.id < enter.id)
      add(5, `${where} merged (id ${merged.id}) before it entered (id ${enter.id})`);
    if (
      enter &&
      !leave &&
      input.finalQueue &&
      enter.id <= input.finalQueue.newestEventIdBefore &&
      pr != null &&
      !input.finalQueue.numbers.has(pr)
    )
      add(
        5,
        `${where} entered (id ${enter.id} at ${iso(enter.receivedAt)}) and never left, but is not in the queue at the end`,
      );
  }
  // One command event per person's command comment, unless its delivery is still waiting.
  const waiting = new Set<number>();
  for (const d of sandbox.file.deliveries ?? []) {
    const id = commentIdOf(d.body);
    if (id !== null) waiting.add(id);
  }
  for (const d of db.deliveries) {
    if (d.processedAt !== null || d.payload === null) continue;
    const id = commentIdOf(d.payload);
    if (id !== null) waiting.add(id);
  }
  const commandsByComment = new Map<number, EventRow[]>();
  for (const e of commandEvents) {
    const id = e.metadata['comment_id'];
    if (typeof id === 'number') commandsByComment.set(id, [...(commandsByComment.get(id) ?? []), e]);
  }
  const commentIds = new Set(personComments.map((c) => c.id));
  /** Deliveries of a comment the sandbox got answered: two ids for one comment mean the sandbox made it twice. */
  const commentDeliveries = (id: number): string => {
    const acks = (journal ?? []).filter(
      (r): r is Extract<JournalRecord, { k: 'd' }> =>
        r.k === 'd' && r.comment === id && r.status !== null && r.status < 300,
    );
    const ids = [...new Map(acks.map((a) => [a.id, a])).values()];
    return ids.length > 1
      ? `; the sandbox delivered it ${ids.length} times under different delivery ids (${ids.map((a) => `${a.id.slice(0, 8)} in ${lifeOf(a)}`).join(', ')}): it made the comment again after losing it`
      : '';
  };
  for (const c of personComments) {
    const list = commandsByComment.get(c.id) ?? [];
    if (list.length === 0 && !waiting.has(c.id))
      add(
        5,
        `${c.user.login}'s "${c.body.trim()}" on #${c.issueNumber} (comment ${c.id} at ${iso(c.createdAt)}) has no command event`,
      );
    if (list.length > 1) {
      const prs = new Set(list.map((e) => e.pullRequest));
      add(
        5,
        `comment ${c.id} ("${c.body.trim()}" on #${c.issueNumber}) has ${list.length} command events (ids ${list.map((e) => `${e.id}${e.pullRequest !== c.issueNumber ? ` on #${e.pullRequest}` : ''}`).join(', ')})` +
          (prs.size > 1
            ? ': the sandbox gave the comment id to another comment after losing the first'
            : '') +
          commentDeliveries(c.id),
      );
    }
  }
  for (const [id, list] of commandsByComment) {
    if (!commentIds.has(id))
      add(
        5,
        `command event${list.length > 1 ? 's' : ''} ${list.map((e) => e.id).join(', ')} (#${list[0]!.pullRequest}) name comment ${id}, which the sandbox does not have`,
      );
  }

  // ---- 6. time monotonic ----
  let backwards = 0;
  let worst = 0;
  const examples: string[] = [];
  for (let i = 1; i < events.length; i++) {
    const a = events[i - 1]!;
    const b = events[i]!;
    if (b.receivedAt < a.receivedAt) {
      backwards++;
      worst = Math.max(worst, a.receivedAt - b.receivedAt);
      if (examples.length < 3)
        examples.push(
          `id ${b.id} (${b.type}) at ${iso(b.receivedAt)} after id ${a.id} (${a.type}) at ${iso(a.receivedAt)}`,
        );
    }
  }
  if (backwards > 0)
    add(
      6,
      `received_at goes back ${backwards} times in id order (at worst ${(worst / 1000).toFixed(0)} sandbox s): ${examples.join('; ')}`,
    );
  // The sandbox clock across restarts: its first reading in each start (the observer wraps
  // ScaledClock.now) against every time seen before: readings, webhook and answer bodies, events.
  const seenMax = new Map<number, number>();
  const see = (life: number, at: number | null | undefined) => {
    if (typeof at === 'number') seenMax.set(life, Math.max(seenMax.get(life) ?? at, at));
  };
  for (const life of input.lives) see(life.index, life.apiObservedMax);
  const firstReading = new Map<number, number>();
  let readings = 0;
  for (const r of journal ?? []) {
    if (r.k === 'w') see(r.life, r.at);
    if (r.k === 'd' && r.status !== null && r.status < 300) see(r.life, r.at);
    if (r.k !== 'c') continue;
    readings++;
    see(r.life, r.at);
    if (r.first && !firstReading.has(r.life)) firstReading.set(r.life, r.at);
    if (r.back !== undefined)
      add(
        6,
        `life ${r.life + 1}: the sandbox clock read ${iso(r.at)}, ${(r.back / 1000).toFixed(1)} sandbox s below an earlier reading`,
      );
  }
  let before = Number.NEGATIVE_INFINITY;
  let beforeLife = -1;
  for (const life of input.lives) {
    const first = firstReading.get(life.index);
    if (first !== undefined && first < before)
      add(
        6,
        `start ${life.index + 1}: the sandbox clock's first reading was ${iso(first)}, ${((before - first) / 1000).toFixed(1)} sandbox s before ${iso(before)}, already seen in life ${beforeLife + 1}`,
      );
    const max = seenMax.get(life.index);
    if (max !== undefined && max > before) {
      before = max;
      beforeLife = life.index;
    }
  }
  if (!journal || readings === 0)
    notes.push(
      'no clock readings in the journal: the sandbox clock across restarts (6) checked through received_at only',
    );

  // ---- 7. the sandbox keeps what it acknowledged ----
  for (const w of ownWrites) {
    const path = rel(w);
    const b = w.b ?? {};
    const sha = (v: unknown) => (typeof v === 'string' ? v : null);
    if (w.m === 'PUT' && /^\/pulls\/\d+\/merge$/.test(path)) {
      const n = Number(path.split('/')[2]);
      const pull = repo.pulls.get(n);
      if (!pull?.merged || (sha(b['sha']) && pull.mergeCommitSha !== b['sha']))
        add(
          7,
          `merge of #${n} (${String(b['sha']).slice(0, 10)}) acknowledged in ${lifeOf(w)} is lost: #${n} is ${pull ? `${pull.state}${pull.merged ? ` merged as ${pull.mergeCommitSha?.slice(0, 10)}` : ''}` : 'gone'}`,
        );
    } else if (w.m === 'POST' && path === '/pulls') {
      const n = Number(b['number']);
      const pull = repo.pulls.get(n);
      if (!pull || pull.user.login !== b['user'] || pull.head !== b['head'])
        add(
          7,
          `pull request #${n} opened by ${String(b['user'])} from ${String(b['head'])}, acknowledged in ${lifeOf(w)}, is lost: #${n} is ${pull ? `${pull.user.login}'s from ${pull.head}` : 'gone'}`,
        );
    } else if (w.m === 'PATCH' && /^\/pulls\/\d+$/.test(path) && b['state'] === 'closed') {
      const n = Number(path.split('/')[2]);
      const pull = repo.pulls.get(n);
      if (pull?.state !== 'closed' || pull.user.login !== b['user'])
        add(
          7,
          `closing #${n} (${String(b['user'])}'s), acknowledged in ${lifeOf(w)}, is lost: #${n} is ${pull ? `${pull.state}, ${pull.user.login}'s` : 'gone'}`,
        );
    } else if (w.m === 'POST' && /^\/issues\/\d+\/comments$/.test(path)) {
      const comment = repo.comments.get(Number(b['id']));
      if (!comment || comment.user.login !== b['user'])
        add(
          7,
          `comment ${String(b['id'])} on ${path.split('/')[2]} by ${String(b['user'])}, acknowledged in ${lifeOf(w)}, is lost`,
        );
    } else if (w.m === 'POST' && path === '/merges' && sha(b['sha'])) {
      if (!graph.get(b['sha'] as string))
        add(7, `commit ${String(b['sha']).slice(0, 10)} made by POST /merges in ${lifeOf(w)} is lost`);
    } else if ((w.m === 'POST' || w.m === 'PATCH') && path.startsWith('/git/refs') && sha(b['object'])) {
      if (!graph.get(b['object'] as string))
        add(
          7,
          `${w.m} ${String(b['ref'])} -> ${String(b['object']).slice(0, 10)} acknowledged in ${lifeOf(w)}: the commit is lost`,
        );
    } else if (w.m === 'POST' && path === '/check-runs' && typeof b['id'] === 'number') {
      if (!repo.checkRuns.has(b['id']))
        add(7, `check run ${b['id']} (${String(b['name'])}) created in ${lifeOf(w)} is lost`);
    }
  }
  if (!journal) notes.push('observer off: acknowledged deliveries (5) and sandbox writes (7) not checked');

  return {
    violations,
    notes,
    figures: {
      pullRequests: pulls.length,
      personPullRequests: persons.length,
      mergedInSandbox: mergedInSandbox.filter(isPerson).length,
      mergedEvents: mergedEvents.length,
      events: events.length,
      deliveriesStored: db.deliveries.length,
      deliveriesAcknowledged,
      deliveriesIgnored,
      sandboxWritesAcknowledged: journal ? ownWrites.length : null,
      queueCommitsOnMain: queueCommits,
      passedTrees: passedTrees.size,
    },
  };
}

/** The default branch's first-parent history, oldest first. */
function firstParentChain(repo: Repository): Commit[] {
  const chain: Commit[] = [];
  for (
    let c = repo.graph.get(repo.branches.get(repo.defaultBranch) ?? '');
    c;
    c = repo.graph.get(c.parents[0] ?? '')
  )
    chain.push(c);
  return chain.reverse();
}

function commentIdOf(body: string): number | null {
  try {
    const payload = JSON.parse(body) as { comment?: { id?: unknown } };
    return typeof payload.comment?.id === 'number' ? payload.comment.id : null;
  } catch {
    return null;
  }
}

/** Deliveries the sandbox's persisted state says were delivered, when it keeps such a record (any array of deliveries with status 'delivered'). */
function persistedDelivered(sandbox: SandboxState): { id: string; event: string }[] {
  const found: { id: string; event: string }[] = [];
  for (const value of Object.values(sandbox.file as unknown as Record<string, unknown>)) {
    if (!Array.isArray(value)) continue;
    for (const item of value) {
      if (item && typeof item === 'object' && (item as { status?: unknown }).status === 'delivered') {
        const { id, event } = item as { id?: unknown; event?: unknown };
        if (typeof id === 'string') found.push({ id, event: String(event) });
      }
    }
  }
  return found;
}
