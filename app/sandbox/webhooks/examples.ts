import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

interface WebhookDefinition {
  name: string;
  examples: Record<string, unknown>[];
}

let definitions: WebhookDefinition[] | undefined;

/** @octokit/webhooks-examples is 4 MB of JSON: read once, on the first delivery. */
function load(): WebhookDefinition[] {
  if (!definitions) {
    const path = createRequire(import.meta.url).resolve('@octokit/webhooks-examples');
    definitions = JSON.parse(readFileSync(path, 'utf8')) as WebhookDefinition[];
  }
  return definitions;
}

/**
 * A copy of GitHub's example payload for an event (and action), the one with the most
 * fields among the examples — preferring those sent to an app installation — so that a payload
 * built on it keeps every field GitHub sends, with the sandbox's values laid over it. Some
 * actions have no example (`pull_request.edited`): another action's example of the same event
 * stands in, since the payloads of one event share their shape.
 */
export function examplePayload(name: string, action?: string): Record<string, unknown> {
  const key = `${name}.${action ?? ''}`;
  let best = chosen.get(key);
  if (!best) {
    const examples = load().find((d) => d.name === name)?.examples ?? [];
    const ofAction = examples.filter((e) => action === undefined || e['action'] === action);
    const candidates = ofAction.length > 0 ? ofAction : examples;
    if (candidates.length === 0) throw new Error(`no example payload for ${name}`);
    const score = (e: Record<string, unknown>) =>
      ('installation' in e ? 1000 : 0) + JSON.stringify(e).length / 1e6;
    best = candidates.reduce((a, b) => (score(b) > score(a) ? b : a));
    if (ofAction.length === 0) {
      // A sibling action's example: keep only the fields every action of the event carries
      // (a `labeled` example's `label` has no business in an `edited` payload).
      const shared = (field: string) =>
        ['installation', 'organization'].includes(field) || examples.every((e) => field in e);
      best = Object.fromEntries(Object.entries(best).filter(([field]) => shared(field)));
    }
    chosen.set(key, best);
  }
  // A shallow copy: the sandbox replaces top-level fields and never writes into the example's
  // nested objects, and cloning 4 MB worth of examples per delivery would dominate a long run.
  return { ...best };
}

/** The example picked for each event and action: scoring them once, not per delivery. */
const chosen = new Map<string, Record<string, unknown>>();
