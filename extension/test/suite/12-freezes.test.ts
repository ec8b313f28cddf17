import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { configureForTestServer, rows, testServer } from './support.ts';

/** A freeze made through the API (Mergify's shapes), as an admin would; answers its id. */
async function createFreeze(body: Record<string, unknown>): Promise<string> {
  const server = testServer();
  const response = await fetch(`${server.url}/v1/repos/acme/app/scheduled_freeze`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return ((await response.json()) as { id: string }).id;
}

async function deleteFreeze(id: string): Promise<void> {
  const server = testServer();
  await fetch(`${server.url}/v1/repos/acme/app/scheduled_freeze/${id}/delete`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.adminKey}` },
  });
}

/** `YYYY-MM-DDTHH:MM:SS` in UTC: a freeze time in the UTC zone. */
const utc = (ms: number) => new Date(ms).toISOString().slice(0, 19);

describe('Scheduled Freezes view', () => {
  const made: string[] = [];
  after(async () => {
    for (const id of made) await deleteFreeze(id);
  });

  it('lists the freezes, the active one first with until when, the upcoming one with when it starts', async () => {
    const api = await configureForTestServer();
    assert.deepEqual(await rows(api.freezesTree), [], 'no freeze yet: the welcome text shows');
    const hour = 3_600_000;
    made.push(
      await createFreeze({
        reason: 'Release 3.2 next week',
        timezone: 'Europe/Paris',
        start: utc(Date.now() + 48 * hour).concat('Z'),
        end: utc(Date.now() + 50 * hour).concat('Z'),
        matching_conditions: ['base=main'],
      }),
    );
    made.push(
      await createFreeze({
        reason: 'Incident 42: hold merges',
        timezone: 'UTC',
        end: utc(Date.now() + 3 * hour),
      }),
    );

    const shown = await rows(api.freezesTree);
    assert.deepEqual(
      shown.map((r) => r.label),
      ['Incident 42: hold merges', 'Release 3.2 next week'],
    );
    assert.match(shown[0]!.description, /^active · until .+ \(in (2|3) hr\.\)$/);
    assert.match(shown[1]!.description, /^upcoming · from .+ \((tomorrow|in 2 days)\) to .+$/);
    assert.equal((shown[0]!.item.iconPath as vscode.ThemeIcon).id, 'lock');
    const tooltip = (shown[1]!.item.tooltip as vscode.MarkdownString).value;
    assert.match(tooltip, /\(Europe\/Paris\); here: /);
    assert.match(tooltip, /Holds the pull requests matching: base=main\./);

    // Deleted elsewhere: gone at the next refresh.
    await deleteFreeze(made.pop()!);
    await vscode.commands.executeCommand('trainyard.refresh');
    assert.deepEqual(
      (await rows(api.freezesTree)).map((r) => r.label),
      ['Release 3.2 next week'],
    );
  });

  it('a refused credential: the view says why instead of listing', async () => {
    const api = await configureForTestServer();
    await vscode.commands.executeCommand('trainyard.setApiKey', `ty_${'x'.repeat(43)}`);
    try {
      const shown = await rows(api.freezesTree);
      assert.equal(shown.length, 1);
      assert.match(shown[0]!.label, /^No access to acme\/app/);
    } finally {
      await vscode.commands.executeCommand('trainyard.setApiKey', testServer().adminKey);
    }
  });
});
