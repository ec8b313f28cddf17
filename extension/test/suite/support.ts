import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { ApiClient } from '../../../shared/client/api-client.ts';
import type { MergeQueueStatus } from '../../../shared/schemas/merge-queue.schema.ts';
import type { TrainyardApi } from '../../src/extension.ts';
import type { TreeNode } from '../../src/tree-node.ts';

/** A sandbox GitHub account and its user token (pull only, push, or no access to acme/app). */
export interface GithubUser {
  login: string;
  id: number;
  token: string;
}

/** What test/support/extension-server.ts printed (passed through code-server's environment). */
export interface TestServer {
  url: string;
  adminKey: string;
  readKey: string;
  repository: string;
  /** Test control of acme/merges: `POST <control>/merges/advance` lets its CI finish and merges happen. */
  control: string;
  /** The sandbox GitHub the server asks about GitHub tokens, and user tokens it minted. */
  github: {
    apiUrl: string;
    reader: GithubUser;
    writer: GithubUser;
    outsider: GithubUser;
  };
  eventCount: number;
  servesQueueState: boolean;
  queueStateSaveError: string | null;
  /** The engine's status projection of the seeded queue (what the status route should serve). */
  projection: MergeQueueStatus;
  expected: {
    batches: { name: string; status: string; pullRequests: number[]; subBatches: string[] }[];
    waiting: number[];
  };
}

export function testServer(): TestServer {
  const text = process.env.TRAINYARD_TEST_SERVER;
  assert.ok(text, 'TRAINYARD_TEST_SERVER is not set: run the tests with extension/scripts/run-ext-tests.mjs');
  return JSON.parse(text) as TestServer;
}

export const EXTENSION_ID = 'trainyard.trainyard-vscode';

export async function extensionApi(): Promise<TrainyardApi> {
  const ext = vscode.extensions.getExtension<TrainyardApi>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not loaded`);
  return ext.isActive ? ext.exports : await ext.activate();
}

/** A client of the server, for checking what the extension did (not how the extension talks). */
export function serverClient(key = testServer().adminKey): ApiClient {
  return new ApiClient({ baseUrl: testServer().url, token: () => key });
}

export interface Row {
  label: string;
  description: string;
  node: TreeNode;
  item: vscode.TreeItem;
}

/** What the user sees: each child's label and description. */
export async function rows(provider: vscode.TreeDataProvider<TreeNode>, parent?: TreeNode): Promise<Row[]> {
  const children = (await provider.getChildren(parent)) ?? [];
  return Promise.all(
    children.map(async (node) => {
      const item = await provider.getTreeItem(node);
      const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
      const description = typeof item.description === 'string' ? item.description : '';
      return { label, description, node, item };
    }),
  );
}

export function find(list: Row[], label: string | RegExp): Row {
  const row = list.find((r) => (typeof label === 'string' ? r.label === label : label.test(r.label)));
  assert.ok(row, `no row ${label} among ${JSON.stringify(list.map((r) => r.label))}`);
  return row;
}

/** Replaces a function of a (vscode) object until restore() — the real API otherwise. */
export function stub<T extends object, K extends keyof T>(
  target: T,
  key: K,
  value: T[K],
): { restore(): void } {
  const original = target[key];
  (target as Record<K, T[K]>)[key] = value;
  return {
    restore() {
      (target as Record<K, T[K]>)[key] = original;
    },
  };
}

export async function setSetting(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('trainyard').update(key, value, vscode.ConfigurationTarget.Global);
}

/** The state the other suites start from: the test server, acme/app, the admin key. */
export async function configureForTestServer(): Promise<TrainyardApi> {
  const api = await extensionApi();
  const server = testServer();
  await setSetting('apiUrl', server.url);
  await setSetting('eventLog.pageSize', 10);
  await vscode.commands.executeCommand('trainyard.selectRepository', server.repository);
  await vscode.commands.executeCommand('trainyard.setApiKey', server.adminKey);
  await api.queue.refresh();
  return api;
}

/** Polls until the condition holds (the UI updates asynchronously). */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A measured figure, printed in the runner's output (the host's console does not reach it). */
export function report(line: string): void {
  const log = process.env.EXT_TEST_LOG;
  if (log) fs.appendFileSync(log, `      ${line}\n`);
}
