import { describe, expect, it } from 'vitest';
import { executeEffect } from '../../../../app/github/outbox/effect-runner.ts';
import type { VerifyMerge } from '../../../../app/queue/effects.ts';
import { nockGetCommit } from '../../../support/nock/commits.ts';
import { useGithubNock } from '../../../support/nock/github-nock.ts';

const github = useGithubNock();

function verifyMerge(overrides: Partial<VerifyMerge> = {}): VerifyMerge {
  return {
    type: 'verify_merge',
    key: 'verify_merge:batch-a',
    base: 'main',
    batchId: 'batch-a',
    testedSha: 'tested-1',
    expectedTree: 'tree-expected',
    ...overrides,
  };
}

describe('verify_merge', () => {
  it('reads the base once: its head, tree and parents', async () => {
    nockGetCommit(github, { ref: 'main', sha: 'main-7', parents: ['main-6'] });

    const inputs = await executeEffect(verifyMerge(), github.client());

    expect(inputs).toEqual([
      {
        type: 'base_tree_read',
        batchId: 'batch-a',
        base: 'main',
        headSha: 'main-7',
        treeSha: 'tree-of-main-7',
        parentShas: ['main-6'],
        testedTree: null,
      },
    ]);
    expect(github.requests).toEqual([{ request: 'GET /repos/acme/widgets/commits/main?per_page=1' }]);
  });

  it('reads the tested commit too when its tree is not known (tested in place)', async () => {
    nockGetCommit(github, { ref: 'main', sha: 'main-7', parents: ['main-6'] });
    nockGetCommit(github, { ref: 'pr-3-head', sha: 'pr-3-head' });

    const inputs = await executeEffect(
      verifyMerge({ testedSha: 'pr-3-head', expectedTree: null }),
      github.client(),
    );

    expect(inputs).toMatchObject([
      { type: 'base_tree_read', treeSha: 'tree-of-main-7', testedTree: 'tree-of-pr-3-head' },
    ]);
    expect(github.requests).toHaveLength(2);
  });
});
