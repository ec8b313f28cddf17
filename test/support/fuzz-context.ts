import type { FuzzContext } from './fuzz-case.ts';
import { sendRequest } from './fuzz-http.ts';
import { operationsOf } from './fuzz-openapi.ts';
import type { FuzzFixtures } from './fuzz-seed.ts';
import { parseLinkHeader } from './link-header.ts';

async function get(url: string, token: string): Promise<Response> {
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(30_000),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`fuzz set-up: ${url} answered ${res.status}`);
  return res;
}

const relative = (link: string) => {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
};

/** Every link of the first two pages of a query (first, prev, next, last). */
async function linksOf(url: string, token: string): Promise<string[]> {
  const first = parseLinkHeader((await get(url, token)).headers.get('link'));
  const found = Object.values(first);
  if (first['next'])
    found.push(...Object.values(parseLinkHeader((await get(first['next'], token)).headers.get('link'))));
  return [...new Set(found.map(relative))];
}

/**
 * What the generator needs from the running server: its OpenAPI document's operations, and
 * real `/logs` links (with cursors) of a few queries, plus a cursor of another repository.
 */
export async function buildFuzzContext(baseUrl: string, fixtures: FuzzFixtures): Promise<FuzzContext> {
  const doc = await (await fetch(`${baseUrl}/v1/openapi.json`)).json();
  const operations = operationsOf(doc);
  if (operations.length === 0) throw new Error('the OpenAPI document lists no operation');
  const token = fixtures.tokens.admin;
  const logs = `${baseUrl}/v1/repos/${fixtures.owner}/${fixtures.repository}/logs`;
  const queries = [
    'per_page=3',
    'per_page=7&event_type=action.queue.enter&event_type=action.queue.leave',
    'pull_request=3&per_page=2',
    'base_ref=main&per_page=50',
  ];
  const links = (await Promise.all(queries.map((q) => linksOf(`${logs}?${q}`, token)))).flat();
  const foreign = await linksOf(
    `${baseUrl}/v1/repos/${fixtures.owner}/${fixtures.otherRepository}/logs?per_page=3`,
    token,
  );
  const foreignCursors = foreign
    .map((l) => new URL(l, baseUrl).searchParams.get('cursor'))
    .filter((c): c is string => c !== null);
  if (links.length === 0 || foreignCursors.length === 0)
    throw new Error('fuzz set-up: the seeded logs gave no Link header');
  return { operations, fixtures, links, foreignCursors };
}

/** Whether the server answers an ordinary read of the log with a 200 within `timeoutMs`. */
export async function answersNormally(
  baseUrl: string,
  fixtures: FuzzFixtures,
  timeoutMs: number,
): Promise<boolean> {
  const answer = await sendRequest(
    baseUrl,
    {
      method: 'GET',
      target: `/v1/repos/${fixtures.owner}/${fixtures.repository}/logs?per_page=1`,
      headers: [['Authorization', `Bearer ${fixtures.tokens.reader}`]],
    },
    timeoutMs,
  );
  return answer.kind === 'answer' && answer.status === 200;
}
