/** How many exchanges of one REST operation were checked, and how many failed. */
export interface OperationCount {
  /** Requests the app sent. */
  requests: number;
  invalidRequests: number;
  /** Answers the sandbox code host gave (to the app or to a test). */
  responses: number;
  invalidResponses: number;
  /** Answers a test scripted with nock (or replayed from @octokit/fixtures): reported, not failed. */
  scripted: number;
  invalidScripted: number;
}

export interface WebhookCount {
  delivered: number;
  invalid: number;
}

/** One test file's counts, as written for the report. */
export interface ContractTally {
  file: string;
  operations: Record<string, OperationCount>;
  webhooks: Record<string, WebhookCount>;
  /** Requests of the app that no operation of the description matches (invalid). */
  unmatched: number;
  /** Sandbox answers to a test's request that no operation describes (a 404, a legacy route). */
  undescribed: number;
  problems: string[];
  /** Scripted answers (nock) that differ from the description: reported, not failed. */
  scriptedProblems: string[];
}

export function emptyTally(file: string): ContractTally {
  return {
    file,
    operations: {},
    webhooks: {},
    unmatched: 0,
    undescribed: 0,
    problems: [],
    scriptedProblems: [],
  };
}

export function webhookCount(tally: ContractTally, key: string): WebhookCount {
  tally.webhooks[key] ??= { delivered: 0, invalid: 0 };
  return tally.webhooks[key];
}

export function operationCount(tally: ContractTally, key: string): OperationCount {
  tally.operations[key] ??= {
    requests: 0,
    invalidRequests: 0,
    responses: 0,
    invalidResponses: 0,
    scripted: 0,
    invalidScripted: 0,
  };
  return tally.operations[key];
}

/** Several files' tallies added up. */
export function mergeTallies(tallies: readonly ContractTally[]): ContractTally {
  const total = emptyTally('all');
  for (const tally of tallies) {
    total.unmatched += tally.unmatched;
    total.undescribed += tally.undescribed ?? 0;
    total.problems.push(...tally.problems.map((p) => `${tally.file}: ${p}`));
    total.scriptedProblems.push(...tally.scriptedProblems.map((p) => `${tally.file}: ${p}`));
    for (const [key, count] of Object.entries(tally.operations)) {
      const sum = operationCount(total, key);
      for (const field of Object.keys(count) as (keyof OperationCount)[]) sum[field] += count[field];
    }
    for (const [key, count] of Object.entries(tally.webhooks)) {
      const sum = webhookCount(total, key);
      sum.delivered += count.delivered;
      sum.invalid += count.invalid;
    }
  }
  return total;
}
