import { describe, expect, it } from 'vitest';
import { evaluateConditions } from '../../../app/config/conditions/evaluate-conditions.ts';
import type { CheckRunFact, PullRequestFacts } from '../../../app/config/conditions/pull-request-facts.ts';
import { conditions } from './conditions-builder.ts';
import { facts } from './facts-builder.ts';

const NOW = Date.parse('2025-01-15T10:00:00Z'); // a Wednesday

function matches(condition: string, pr: PullRequestFacts): boolean {
  return evaluateConditions(conditions(condition), pr, NOW).match;
}

const checks = (...runs: [string, CheckRunFact['state']][]) => ({
  checkRuns: runs.map(([name, state]) => ({ name, state })),
});

describe('evaluateConditions — one condition at a time', () => {
  it.each<[string, Partial<PullRequestFacts>, boolean]>([
    ['label=hotfix', { labels: ['hotfix', 'backend'] }, true],
    ['label=hotfix', { labels: ['backend'] }, false],
    ['label=hotfix', { labels: [] }, false],
    ['label=HotFix', { labels: ['hotfix'] }, true],
    ['label!=wip', { labels: ['backend'] }, true],
    ['label!=wip', { labels: ['backend', 'wip'] }, false],
    ['-label=wip', { labels: ['wip'] }, false],
    ['-label=wip', { labels: [] }, true],
    ['label~=^team/', { labels: ['bug', 'team/web'] }, true],
    ['label~=^team/', { labels: ['bug'] }, false],
    ['#label=0', { labels: [] }, true],
    ['#label>=2', { labels: ['a', 'b'] }, true],
    ['#label>2', { labels: ['a', 'b'] }, false],
    ['#label<2', { labels: ['a'] }, true],
    ['#label<=0', { labels: ['a'] }, false],
    ['#label!=1', { labels: ['a'] }, false],
    ['files=README.md', { files: ['README.md', 'web/a.ts'] }, true],
    ['files=readme.md', { files: ['README.md'] }, false],
    ['files~=^web/', { files: ['api/a.ts', 'web/b.ts'] }, true],
    ['files~=^web/', { files: ['api/a.ts'] }, false],
    ['-files~=^web/', { files: ['api/a.ts'] }, true],
    ['#files>1', { files: ['a', 'b'] }, true],
    ['base=main', { base: 'main' }, true],
    ['base=main', { base: 'release' }, false],
    ['base!=main', { base: 'release' }, true],
    ['base~=^release/', { base: 'release/1.2' }, true],
    ['head=feature/login', {}, true],
    ['author=octocat', { author: 'octocat' }, true],
    ['author=OctoCat', { author: 'octocat' }, true],
    ['author!=dependabot[bot]', { author: 'dependabot[bot]' }, false],
    ['title~=^feat', { title: 'feat: login' }, true],
    ['title~=^feat', { title: 'Feat: login' }, false],
    ['title~=(?i)^feat', { title: 'Feat: login' }, true],
    ['title=feat: login', { title: 'feat: login' }, true],
    ['title=FEAT: login', { title: 'feat: login' }, false],
    ['body~=Closes #\\d+', { body: 'Fix.\n\nCloses #12' }, true],
    ['draft', { draft: true }, true],
    ['draft', { draft: false }, false],
    ['-draft', { draft: false }, true],
    ['number=42', { number: 42 }, true],
    ['number>100', { number: 42 }, false],
    ['approved-reviews-by=alice', { approvedReviewsBy: ['Alice'] }, true],
    ['#approved-reviews-by>=2', { approvedReviewsBy: ['alice', 'bob'] }, true],
    ['#approved-reviews-by>=2', { approvedReviewsBy: ['alice'] }, false],
    ['#changes-requested-reviews-by=0', { changesRequestedReviewsBy: [] }, true],
    ['changes-requested-reviews-by=bob', { changesRequestedReviewsBy: ['bob'] }, true],
    ['check-success=ci', checks(['ci', 'success']), true],
    ['check-success=ci', checks(['ci', 'failure']), false],
    ['check-success=ci', checks(['ci', 'pending']), false],
    ['check-success=ci', checks(), false],
    ['check-success=CI', checks(['ci', 'success']), false],
    ['check-success!=ci', checks(['ci', 'failure']), true],
    ['check-failure=ci', checks(['ci', 'failure']), true],
    ['check-failure=ci', checks(['ci', 'error']), true],
    ['check-failure=ci', checks(['ci', 'cancelled']), true],
    ['check-failure=ci', checks(['ci', 'timed_out']), true],
    ['check-failure=ci', checks(['ci', 'action_required']), true],
    ['check-failure=ci', checks(['ci', 'neutral']), false],
    ['check-pending=ci', checks(['ci', 'pending']), true],
    ['check-neutral=ci', checks(['ci', 'neutral']), true],
    ['check-skipped=ci', checks(['ci', 'skipped']), true],
    ['check-stale=ci', checks(['ci', 'stale']), true],
    ['check-success~=^ci/', checks(['lint', 'success'], ['ci/unit', 'success']), true],
    ['#check-success>=2', checks(['a', 'success'], ['b', 'success'], ['c', 'failure']), true],
    ['#check-failure=0', checks(['a', 'success']), true],
    ['check-success=ci', checks(['ci', 'failure'], ['ci', 'success']), true],
    ['check-failure=ci', checks(['ci', 'failure'], ['ci', 'success']), false],
    ['check-pending=ci', checks(['ci', 'success'], ['ci', 'pending']), true],
    ['#check-success=1', checks(['ci', 'success'], ['ci', 'success']), true],
  ])('%s on %j → %s', (condition, overrides, expected) => {
    expect(matches(condition, facts(overrides))).toBe(expected);
  });
});

describe('evaluateConditions — the evaluation tree', () => {
  it('a list is an "all of" node whose subconditions are the conditions as written', () => {
    expect(
      evaluateConditions(conditions('label=hotfix', '-draft'), facts({ labels: ['hotfix'] }), NOW),
    ).toEqual({
      match: true,
      label: 'all of',
      is_label_user_input: false,
      description: null,
      attribute_name: null,
      operator: null,
      schedule: null,
      subconditions: [
        {
          match: true,
          label: 'label=hotfix',
          is_label_user_input: true,
          description: null,
          attribute_name: 'label',
          operator: '=',
          schedule: null,
          subconditions: [],
          evaluations: [],
        },
        {
          match: true,
          label: '-draft',
          is_label_user_input: true,
          description: null,
          attribute_name: 'draft',
          operator: null,
          schedule: null,
          subconditions: [],
          evaluations: [],
        },
      ],
      evaluations: [],
    });
  });

  it('an empty list matches', () => {
    expect(evaluateConditions([], facts(), NOW)).toMatchObject({
      match: true,
      label: 'all of',
      subconditions: [],
    });
  });

  it('or, and and not nest, labelled "any of", "all of" and "not"', () => {
    const tree = evaluateConditions(
      conditions({ or: ['label=hotfix', { and: ['#approved-reviews-by>=1', { not: 'draft' }] }] }),
      facts({ approvedReviewsBy: ['alice'] }),
      NOW,
    );
    const outline = (node: typeof tree): unknown => [
      node.label,
      node.match,
      ...node.subconditions.map(outline),
    ];
    expect(outline(tree)).toEqual([
      'all of',
      true,
      [
        'any of',
        true,
        ['label=hotfix', false],
        ['all of', true, ['#approved-reviews-by>=1', true], ['not', true, ['draft', false]]],
      ],
    ]);
  });

  it('a count reports its attribute without the # and its operator', () => {
    const [leaf] = evaluateConditions(conditions('#files>1'), facts(), NOW).subconditions;
    expect(leaf).toMatchObject({ label: '#files>1', attribute_name: 'files', operator: '>' });
  });

  it('a regular expression reports ~=', () => {
    const [leaf] = evaluateConditions(conditions('title~=^feat'), facts(), NOW).subconditions;
    expect(leaf).toMatchObject({ attribute_name: 'title', operator: '~=', match: true });
  });

  it('a schedule condition carries its window, whether it is open and when that changes', () => {
    const [leaf] = evaluateConditions(
      conditions('schedule=Mon-Fri 09:00-17:00[Europe/Paris]'),
      facts(),
      new Date('2025-01-15T10:00:00Z'),
    ).subconditions;
    expect(leaf).toEqual({
      match: true,
      label: 'schedule=Mon-Fri 09:00-17:00[Europe/Paris]',
      is_label_user_input: true,
      description: null,
      attribute_name: 'schedule',
      operator: '=',
      schedule: {
        timezone: 'Europe/Paris',
        days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'],
        times: ['09:00-17:00'],
        is_open: true,
        next_change_at: '2025-01-15T16:00:00.000Z',
      },
      subconditions: [],
      evaluations: [],
    });
  });

  it.each([
    ['schedule=Mon-Fri 09:00-17:00[Europe/Paris]', '2025-01-15T10:00:00Z', true],
    ['schedule=Mon-Fri 09:00-17:00[Europe/Paris]', '2025-01-18T10:00:00Z', false],
    ['schedule!=Sat-Sun', '2025-01-18T10:00:00Z', false],
    ['-schedule=Sat-Sun', '2025-01-15T10:00:00Z', true],
  ])('%s at %s → %s', (condition, at, expected) => {
    expect(evaluateConditions(conditions(condition), facts(), Date.parse(at)).match).toBe(expected);
  });

  it('is deterministic: the same inputs give the same tree', () => {
    const list = conditions({ or: ['files~=^web/', 'schedule=Mon 09:00-10:00[Asia/Tokyo]'] }, '#label<3');
    expect(evaluateConditions(list, facts(), NOW)).toEqual(evaluateConditions(list, facts(), new Date(NOW)));
  });

  it('the tree is plain JSON', () => {
    const tree = evaluateConditions(conditions('schedule=Mon-Fri', 'label=x'), facts(), NOW);
    expect(JSON.parse(JSON.stringify(tree))).toEqual(tree);
  });
});
