import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { configureForTestServer, extensionApi, serverClient, waitFor } from './support.ts';

describe('Statistics view against the real server', () => {
  after(async () => (await extensionApi()).statistics()?.panel.dispose());

  it('opens a webview whose page draws six charts (bundled Chart.js, strict CSP) from the API’s statistics', async function () {
    this.timeout(60_000);
    const api = await configureForTestServer();
    await vscode.commands.executeCommand('trainyard.showStatistics', 30);
    const panel = api.statistics();
    assert.ok(panel, 'the Statistics panel is open');
    await waitFor(
      () => panel.view.kind === 'charts' && panel.view.days === 30,
      20_000,
      'the statistics to load',
    );
    await waitFor(() => panel.drawnCharts === 6, 20_000, 'the webview to draw the charts');
    const view = panel.view;
    assert.ok(view.kind === 'charts');
    assert.deepEqual(
      view.charts.map((c) => c.title),
      ['Time to merge', 'Queue size', 'Failure rate', 'Batch size', 'CI runtime', 'Exit reasons'],
    );
    // The fixture's queue started batches within the last 30 days: the figures are the server's.
    const served = await serverClient().stats('acme', 'app', 'batch_size', {
      start_at: new Date(Date.now() - 30 * 86_400_000).toISOString(),
    });
    const started = served.groups.flatMap((g) => g.stats ?? []).reduce((n, b) => n + b.count_batch_size, 0);
    assert.ok(started > 0, 'the server counts started batches');
    const batch = view.charts.find((c) => c.id === 'batch-size')!;
    assert.match(batch.summary, new RegExp(`^${started} batches started, `));
    assert.ok(batch.labels.length > 0 && batch.series[0]!.data.some((v) => v !== null));
    const html = panel.panel.webview.html;
    assert.match(html, /Content-Security-Policy" content="default-src 'none'; script-src 'nonce-/);
    // Nothing from the network: the only URL is the extension's own script, served by the webview.
    const urls = html.match(/https?:\/\/[^"' ]+/g) ?? [];
    assert.equal(urls.length, 1, `URLs in the page: ${urls.join(', ')}`);
    assert.match(urls[0]!, /\/dist\/statistics\.js$/);
    // Another period: the same panel, reloaded.
    await vscode.commands.executeCommand('trainyard.showStatistics', 1);
    await waitFor(
      () => panel.view.kind === 'charts' && panel.view.days === 1,
      20_000,
      'the 1-day statistics',
    );
  });
});
