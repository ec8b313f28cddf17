import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Repository } from '../../../app/sandbox/entities.ts';
import type { Delivery } from '../../../app/sandbox/hook-delivery.ts';
import {
  installRepository,
  postWebhook,
  startTrainyard,
  type Tester,
} from '../../support/trainyard-tester.ts';

const MINUTE = 60_000;
let t: Tester;
let repo: Repository;

beforeEach(async () => {
  t = await startTrainyard();
  repo = installRepository(t, 'widgets', {
    'README.md': 'hello\n',
    '.github/trainyard.yml': 'queue_rules:\n  - name: default\n',
  });
  await t.settle();
});
afterEach(async () => {
  await t?.close();
});

/** Rows of the inbox and of the event log (every repository), and outbox rows per effect type. */
async function stored() {
  const db = t.store.db;
  const count = async (table: 'webhook_deliveries' | 'events') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { deliveries: await count('webhook_deliveries'), events: await count('events') };
}

async function outboxOf(type: string): Promise<number> {
  const rows = await t.store.db.selectFrom('outbox').select('effect').execute();
  return rows.filter((r) => r.effect.type === type).length;
}

function lastDelivery(event: string, action?: string): Delivery {
  const found = t.sandbox.webhooks
    .deliveries()
    .filter((d) => d.event === event && (action === undefined || d.action === action))
    .at(-1);
  if (!found) throw new Error(`no ${event} delivery`);
  return found;
}

describe('duplicate and out-of-order deliveries (sandbox code host)', () => {
  it('a redelivered queue command, before and after it was processed, is answered 200 "duplicate" and applied once', async () => {
    const pr = t.github.openPullRequest(repo, { author: 'alice', title: 'Add a', files: { 'a.txt': 'a\n' } });
    await t.settle();
    t.comment(repo, pr.number, '@trainyard queue');
    await t.sandbox.webhooks.flush(); // stored, not processed yet
    const original = lastDelivery('issue_comment');
    expect(original.attempts.map((a) => a.status)).toEqual([202]);

    // GitHub's "Redeliver" while the first copy waits in the inbox.
    const early = t.sandbox.webhooks.redeliver(original.id);
    await t.sandbox.webhooks.flush();
    expect(early.attempts.map((a) => a.status)).toEqual([200]);
    const direct = await postWebhook(t.url, { id: original.id, event: original.event, body: original.body });
    expect(direct).toEqual({ status: 200, body: { delivery: original.id, status: 'duplicate' } });

    await t.settle();
    const once = await t.eventLines(repo);
    expect(once.filter((l) => l === `command.queue #${pr.number}`)).toHaveLength(1);
    expect(once.filter((l) => l === `action.queue.enter #${pr.number}`)).toHaveLength(1);
    expect(await outboxOf('react_to_comment')).toBe(1);

    // And again once it was processed: nothing changes.
    const before = await stored();
    const late = t.sandbox.webhooks.redeliver(original.id);
    await t.settle();
    expect(late.attempts.map((a) => a.status)).toEqual([200]);
    expect(await stored()).toEqual(before);
    expect(await t.eventLines(repo)).toEqual(once);

    await t.advance(15 * MINUTE);
    expect(t.merges).toEqual([{ repo: 'widgets', number: pr.number }]);
    // A redelivered `closed` (merged) after the merge changes nothing either.
    const closed = lastDelivery('pull_request', 'closed');
    const merged = await t.eventLines(repo);
    t.sandbox.webhooks.redeliver(closed.id);
    await t.settle();
    expect(await t.eventLines(repo)).toEqual(merged);
    expect(merged.filter((l) => l.startsWith('action.queue.merged'))).toEqual([
      `action.queue.merged #${pr.number}`,
    ]);
    expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
  });

  it('a late `synchronize` processed after a newer one: the engine sees the current head, tests it and merges it', async () => {
    const pr = t.github.openPullRequest(repo, {
      author: 'alice',
      title: 'Add b',
      files: { 'b.txt': 'v1\n' },
    });
    await t.settle();
    t.comment(repo, pr.number, '@trainyard queue');
    await t.advance(MINUTE); // its batch runs on a draft PR, at head v1
    expect(t.drafts(repo)).toHaveLength(1);

    // Two pushes; GitHub's deliveries of them reach Trainyard newest first.
    t.sandbox.webhooks.hold();
    const v2 = t.github.pushToPullRequest(repo, pr.number, { files: { 'b.txt': 'v2\n' } });
    const v3 = t.github.pushToPullRequest(repo, pr.number, { files: { 'b.txt': 'v3\n' } });
    const syncs = t.sandbox.webhooks
      .deliveries()
      .filter((d) => d.event === 'pull_request' && d.action === 'synchronize' && d.status === 'pending');
    expect(
      syncs.map(
        (d) => (JSON.parse(d.body) as { pull_request: { head: { sha: string } } }).pull_request.head.sha,
      ),
    ).toEqual([v2.sha, v3.sha]);
    for (const delivery of [syncs[1]!, syncs[0]!]) {
      const answer = await postWebhook(t.url, {
        id: delivery.id,
        event: delivery.event,
        body: delivery.body,
      });
      expect(answer.status).toBe(202);
    }
    await t.app.runUntilIdle();
    // The late v2 delivery did not take the engine back: one abort for the head change, and the
    // new batch is built from v3.
    const events = await t.events(repo);
    const updated = events.filter(
      (e) => e.type === 'action.queue.checks_end' && e.metadata.abort_code === 'PULL_REQUEST_UPDATED',
    );
    expect(updated.map((e) => e.pull_request)).toEqual([pr.number]);
    const prepares = (await t.store.db.selectFrom('outbox').select('effect').orderBy('id').execute())
      .map((r) => r.effect)
      .filter((e) => e.type === 'prepare_test_branch') as { pullRequests: { headSha: string }[] }[];
    expect(prepares.at(-1)!.pullRequests).toEqual([{ number: pr.number, headSha: v3.sha }]);

    // The rest of GitHub's deliveries (the pushes, and the two synchronize again: duplicates).
    t.sandbox.webhooks.release();
    await t.settle();
    for (const delivery of syncs) expect(delivery.attempts.map((a) => a.status)).toEqual([200]);
    await t.advance(15 * MINUTE);
    expect(t.merges).toEqual([{ repo: 'widgets', number: pr.number }]);
    expect(t.github.pulls.get(repo, pr.number).headSha).toBe(v3.sha);
    expect(t.github.fileText(repo, 'main', 'b.txt')).toBe('v3\n');
    expect(await t.leftovers()).toEqual({ outbox: 0, deliveries: 0, dueTimers: 0 });
  });
});

describe('the webhook endpoint refuses what it must and stores nothing it need not', () => {
  async function queueCommand() {
    const pr = t.github.openPullRequest(repo, { author: 'alice', title: 'Add c', files: { 'c.txt': 'c\n' } });
    await t.settle();
    // A real delivery of a queue command, taken before it reaches Trainyard.
    t.sandbox.webhooks.hold();
    t.comment(repo, pr.number, '@trainyard queue');
    const delivery = lastDelivery('issue_comment');
    return { pr, delivery };
  }

  it('a wrong signature ⇒ 401 and nothing stored or applied; the same delivery correctly signed is then accepted', async () => {
    const { pr, delivery } = await queueCommand();
    const before = await stored();
    const forged = await postWebhook(t.url, {
      id: delivery.id,
      event: delivery.event,
      body: delivery.body,
      secret: 'not-the-secret',
    });
    expect(forged.status).toBe(401);
    const tampered = await postWebhook(t.url, {
      id: delivery.id,
      event: delivery.event,
      body: delivery.body.replace('@trainyard queue', '@trainyard dequeue'),
      signature: `sha256=${'0'.repeat(64)}`,
    });
    expect(tampered.status).toBe(401);
    const unsigned = await postWebhook(t.url, {
      id: delivery.id,
      event: delivery.event,
      body: delivery.body,
      omit: ['x-hub-signature-256'],
    });
    expect(unsigned.status).toBe(401);
    await t.app.runUntilIdle();
    expect(await stored()).toEqual(before);
    expect(await t.eventLines(repo)).not.toContain(`command.queue #${pr.number}`);

    // Not remembered as seen: GitHub's own (signed) delivery of that id goes through.
    t.sandbox.webhooks.release();
    await t.settle();
    expect(delivery.attempts.map((a) => a.status)).toEqual([202]);
    expect(await t.eventLines(repo)).toContain(`command.queue #${pr.number}`);
  });

  it('missing delivery or event headers ⇒ 400; a signed body that is not JSON ⇒ 400; an event Trainyard does not handle ⇒ 200 ignored; nothing stored', async () => {
    const { delivery } = await queueCommand();
    const before = await stored();
    for (const omit of ['x-github-delivery', 'x-github-event'] as const) {
      const answer = await postWebhook(t.url, {
        id: delivery.id,
        event: delivery.event,
        body: delivery.body,
        omit: [omit],
      });
      expect(answer.status, omit).toBe(400);
    }
    const notJson = await postWebhook(t.url, {
      id: 'not-json-1',
      event: 'issue_comment',
      body: '{"action": "cre',
    });
    expect(notJson).toMatchObject({ status: 400, body: { detail: 'the body is not JSON' } });
    const notObject = await postWebhook(t.url, { id: 'not-json-2', event: 'issue_comment', body: '[1, 2]' });
    expect(notObject.status).toBe(400);
    for (const event of ['star', 'issues', 'workflow_job']) {
      const answer = await postWebhook(t.url, { id: `other-${event}`, event, body: delivery.body });
      expect(answer, event).toEqual({ status: 200, body: { delivery: `other-${event}`, status: 'ignored' } });
    }
    await t.app.runUntilIdle();
    expect(await stored()).toEqual(before);
    // The one well-formed delivery is accepted.
    expect(
      (await postWebhook(t.url, { id: delivery.id, event: delivery.event, body: delivery.body })).status,
    ).toBe(202);
    expect((await stored()).deliveries).toBe(before.deliveries + 1);
    t.sandbox.webhooks.release();
    await t.settle();
  });
});
