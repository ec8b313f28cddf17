import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Event } from '../../../shared/schemas/event.schema.ts';
import { eventSentence } from '../../src/event-log/event-sentence.ts';
import { eventTitle } from '../../src/event-log/nodes/event-node.ts';
import { configureForTestServer, rows, serverClient, stub, testServer } from './support.ts';

/** Every event the server has for acme/app with this filter, newest first, by following its links. */
async function allFromServer(
  filter: { event_type?: string[]; pull_request?: number } = {},
): Promise<Event[]> {
  const client = serverClient();
  let result = await client.logs('acme', 'app', { ...filter, per_page: 100 });
  const events = [...result.page.events];
  while (result.links.next) {
    result = await client.logs('acme', 'app', { url: result.links.next });
    events.push(...result.page.events);
  }
  return events;
}

async function loadAll(api: Awaited<ReturnType<typeof configureForTestServer>>): Promise<void> {
  for (let guard = 0; api.eventLog.hasMore && guard < 100; guard++) {
    await vscode.commands.executeCommand('trainyard.loadMoreEvents');
  }
}

describe('Event Log view against the real server', () => {
  it('shows the newest page first, then "Load more…" pages through the API’s links to the end', async () => {
    const api = await configureForTestServer();
    await vscode.commands.executeCommand('trainyard.clearEventLogFilter');
    const expected = await allFromServer();
    // the engine's events plus pause create, pause update and pause delete from the queue tests
    assert.ok(expected.length >= testServer().eventCount + 3);
    assert.ok(expected.length > 10, 'enough events for several pages');

    let view = await rows(api.eventLogTree);
    assert.equal(view.length, 11);
    assert.equal(view.at(-1)?.label, 'Load more…');
    assert.equal(view.at(-1)?.item.command?.command, 'trainyard.loadMoreEvents');
    assert.deepEqual(
      api.eventLog.events.map((e) => e.id),
      expected.slice(0, 10).map((e) => e.id),
    );
    // newest first: the server's newest event on top, and the newest pause event is the unpause of
    // the queue tests (the pause route steps the engine, whose reaction to the unpause is newer)
    assert.equal(view[0]!.label, eventSentence(expected[0]!));
    assert.equal(expected.find((e) => e.type.startsWith('queue.pause.'))?.type, 'queue.pause.delete');

    await vscode.commands.executeCommand('trainyard.loadMoreEvents');
    view = await rows(api.eventLogTree);
    assert.equal(view.length, 21);
    await loadAll(api);
    view = await rows(api.eventLogTree);
    assert.notEqual(view.at(-1)?.label, 'Load more…');
    assert.deepEqual(
      api.eventLog.events.map((e) => e.id),
      expected.map((e) => e.id),
    );
  });

  it('each event shows its pull request and a relative time, an icon by outcome, and expands to its metadata', async () => {
    const api = await configureForTestServer();
    await vscode.commands.executeCommand('trainyard.clearEventLogFilter');
    await loadAll(api);
    const view = (await rows(api.eventLogTree)).filter((r) => r.label !== 'Load more…');
    const icons: Record<string, string> = {
      success: 'pass',
      failure: 'error',
      pending: 'clock',
      neutral: 'circle-outline',
    };
    const outcomes = new Set<string>();
    for (const [i, row] of view.entries()) {
      const event = api.eventLog.events[i]!;
      outcomes.add(event.outcome);
      assert.equal((row.item.iconPath as vscode.ThemeIcon).id, icons[event.outcome]);
      // One sentence per event (its pull request named in it), then when and the type.
      assert.equal(row.description, `${row.description.split(' · ')[0]} · ${eventTitle(event.type)}`);
      assert.match(row.description, /^(.* ago|now|in .*) · /);
      if (
        event.pull_request !== null &&
        event.type !== 'action.queue.batch_bisection_start' &&
        event.type !== 'action.queue.batch_bisection_end'
      )
        assert.ok(row.label.includes(`#${event.pull_request}`), `${row.label} names #${event.pull_request}`);
      assert.doesNotMatch(row.label, /undefined|null|\{/);
      assert.equal(row.item.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    }
    assert.ok(outcomes.has('pending') && outcomes.size >= 2, `varied outcomes: ${[...outcomes]}`);
    const enter = view.find((r) =>
      /^#\d+ entered the queue \S+ (\(partition \S+\) )?for \S+$/.test(r.label),
    )!;
    assert.ok(enter, `an enter sentence among ${view.map((r) => r.label).join(' | ')}`);
    const leave = view.find((r) => r.description.endsWith('queue batch bisection start'));
    if (leave) assert.match(leave.label, /^Batch of #\d+(, #\d+)* failed; bisecting into \d+ probes/);
    const fields = await rows(api.eventLogTree, enter.node);
    assert.deepEqual(fields[0] && [fields[0].label, fields[0].description], [
      'trigger',
      api.eventLog.events[view.indexOf(enter)]!.trigger,
    ]);
    const event = api.eventLog.events[view.indexOf(enter)]!;
    for (const key of Object.keys(event.metadata))
      assert.ok(
        fields.some((f) => f.label === key),
        `field ${key}`,
      );
  });

  it('filters by event types and by pull request (given, or picked in the quick pick and input box)', async () => {
    const api = await configureForTestServer();
    const types = ['action.queue.enter', 'action.queue.checks_start'];
    assert.equal(await vscode.commands.executeCommand('trainyard.filterEventLog', { types }), true);
    await loadAll(api);
    const expectedByType = await allFromServer({ event_type: types });
    assert.ok(expectedByType.length > 0);
    assert.deepEqual(
      api.eventLog.events.map((e) => e.id),
      expectedByType.map((e) => e.id),
    );
    assert.ok(api.eventLog.events.every((e) => types.includes(e.type)));
    assert.match(
      String(api.eventLogView.message),
      /Filtered by types: action\.queue\.enter, action\.queue\.checks_start/,
    );

    let offered: readonly vscode.QuickPickItem[] = [];
    const pick = stub(vscode.window, 'showQuickPick', (async (items: readonly vscode.QuickPickItem[]) => {
      offered = items;
      return items.filter((i) => i.label === 'action.queue.enter');
    }) as unknown as typeof vscode.window.showQuickPick);
    const input = stub(vscode.window, 'showInputBox', (async (o?: vscode.InputBoxOptions) => {
      assert.equal(o?.validateInput?.('abc'), 'A pull request number (or empty for all)');
      return '2';
    }) as typeof vscode.window.showInputBox);
    try {
      assert.equal(await vscode.commands.executeCommand('trainyard.filterEventLog'), true);
    } finally {
      pick.restore();
      input.restore();
    }
    // Grouped by kind, the kind with the log's types first, and the present types first in it.
    assert.equal(offered[0]?.kind, vscode.QuickPickItemKind.Separator);
    assert.equal(offered[0]?.label, 'Merge queue');
    assert.match(String(offered[1]?.description), /^\d+ in the log$/);
    await loadAll(api);
    assert.deepEqual(api.eventLog.filter, { types: ['action.queue.enter'], pullRequest: 2 });
    const expected = await allFromServer({ event_type: ['action.queue.enter'], pull_request: 2 });
    assert.equal(expected.length, 1);
    assert.deepEqual(
      api.eventLog.events.map((e) => e.id),
      expected.map((e) => e.id),
    );

    assert.equal(await vscode.commands.executeCommand('trainyard.filterEventLog', { pullRequest: 3 }), true);
    await loadAll(api);
    assert.ok(api.eventLog.events.length > 1);
    assert.ok(api.eventLog.events.every((e) => e.pull_request === 3));

    await vscode.commands.executeCommand('trainyard.clearEventLogFilter');
    assert.equal(api.eventLogView.message, undefined);
    assert.equal(api.eventLog.events.length, 10);
  });

  it('Copy event as JSON puts the event, as the API returned it, on the clipboard', async () => {
    const api = await configureForTestServer();
    await vscode.commands.executeCommand('trainyard.clearEventLogFilter');
    const [first] = await rows(api.eventLogTree);
    assert.equal(await vscode.commands.executeCommand('trainyard.copyEventAsJson', first!.node), true);
    const copied = JSON.parse(await vscode.env.clipboard.readText()) as Event;
    assert.deepEqual(copied, api.eventLog.events[0]);
    const doc = (await vscode.commands.executeCommand(
      'trainyard.showEventAsJson',
      first!.node,
    )) as vscode.TextDocument;
    assert.equal(doc.languageId, 'json');
    assert.deepEqual(JSON.parse(doc.getText()), api.eventLog.events[0]);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('keeps loaded pages and adds new events on top as they arrive (also after "Load more…")', async () => {
    const api = await configureForTestServer();
    await vscode.commands.executeCommand('trainyard.clearEventLogFilter');
    await vscode.commands.executeCommand('trainyard.loadMoreEvents');
    const before = api.eventLog.events.map((e) => e.id);
    assert.equal(before.length, 20);
    await serverClient().pause('acme', 'app', 'event log stability');
    await serverClient().unpause('acme', 'app');
    await api.eventLog.refreshTop();
    const after = api.eventLog.events.map((e) => e.id);
    assert.ok(after.length > before.length, 'new events were added');
    assert.deepEqual(after.slice(after.length - before.length), before, 'what was shown stays, in order');
    const top = (await rows(api.eventLogTree)).slice(0, after.length - before.length).map((r) => r.label);
    assert.ok(
      top.some((l) => /unpaused the queue$/.test(l)),
      `new sentences on top: ${top.join(' | ')}`,
    );
    assert.ok(
      top.some((l) => /paused the queue: event log stability$/.test(l)),
      `new sentences on top: ${top.join(' | ')}`,
    );
  });
});
