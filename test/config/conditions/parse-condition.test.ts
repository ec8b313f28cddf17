import { describe, expect, it } from 'vitest';
import { parseCondition } from '../../../app/config/conditions/parse-condition.ts';

function parsed(text: string) {
  const result = parseCondition(text);
  if (!result.ok) throw new Error(`expected ${JSON.stringify(text)} to parse: ${result.message}`);
  return result.condition;
}

function error(text: string): string {
  const result = parseCondition(text);
  if (result.ok) throw new Error(`expected ${JSON.stringify(text)} to be refused`);
  return result.message;
}

describe('parseCondition — accepted syntax', () => {
  it('label=hotfix is an equality on a list attribute', () => {
    expect(parsed('label=hotfix')).toEqual({
      kind: 'equality',
      source: 'label=hotfix',
      negated: false,
      attribute: 'label',
      operator: '=',
      value: 'hotfix',
    });
  });

  it('-label=wip is negated', () => {
    expect(parsed('-label=wip')).toMatchObject({
      kind: 'equality',
      negated: true,
      attribute: 'label',
      value: 'wip',
    });
  });

  it('author!=bot uses !=', () => {
    expect(parsed('author!=bot')).toMatchObject({
      kind: 'equality',
      attribute: 'author',
      operator: '!=',
      value: 'bot',
    });
  });

  it('base=main on a text attribute', () => {
    expect(parsed('base=main')).toMatchObject({ kind: 'equality', attribute: 'base', value: 'main' });
  });

  it('head=feature/x keeps slashes in the value', () => {
    expect(parsed('head=feature/x')).toMatchObject({ attribute: 'head', value: 'feature/x' });
  });

  it('check-success=ci names a check', () => {
    expect(parsed('check-success=ci')).toMatchObject({
      kind: 'equality',
      attribute: 'check-success',
      value: 'ci',
    });
  });

  it.each(['check-failure', 'check-pending', 'check-neutral', 'check-skipped', 'check-stale'])(
    '%s=ci is accepted',
    (attribute) => {
      expect(parsed(`${attribute}=ci`)).toMatchObject({ kind: 'equality', attribute, value: 'ci' });
    },
  );

  it.each(['approved-reviews-by=alice', 'changes-requested-reviews-by=bob', 'files=README.md', 'body=done'])(
    '%s is accepted',
    (text) => {
      expect(parsed(text).kind).toBe('equality');
    },
  );

  it('title~=^feat is a regular expression', () => {
    expect(parsed('title~=^feat')).toEqual({
      kind: 'regex',
      source: 'title~=^feat',
      negated: false,
      attribute: 'title',
      operator: '~=',
      pattern: '^feat',
      flags: '',
    });
  });

  it('files~=^web/ matches paths', () => {
    expect(parsed('files~=^web/')).toMatchObject({ kind: 'regex', attribute: 'files', pattern: '^web/' });
  });

  it('a leading (?i) makes a regular expression case-insensitive', () => {
    expect(parsed('title~=(?i)^wip')).toMatchObject({ pattern: '^wip', flags: 'i' });
  });

  it('#approved-reviews-by>=2 counts a list', () => {
    expect(parsed('#approved-reviews-by>=2')).toEqual({
      kind: 'count',
      source: '#approved-reviews-by>=2',
      negated: false,
      attribute: 'approved-reviews-by',
      operator: '>=',
      value: 2,
    });
  });

  it.each([
    ['#label=0', '='],
    ['#label!=0', '!='],
    ['#files>10', '>'],
    ['#files<10', '<'],
    ['#files<=10', '<='],
    ['#check-failure>=1', '>='],
  ])('%s uses %s', (text, operator) => {
    expect(parsed(text)).toMatchObject({ kind: 'count', operator });
  });

  it('-#changes-requested-reviews-by>0 negates a count', () => {
    expect(parsed('-#changes-requested-reviews-by>0')).toMatchObject({
      kind: 'count',
      negated: true,
      value: 0,
    });
  });

  it('draft alone is a flag', () => {
    expect(parsed('draft')).toEqual({
      kind: 'flag',
      source: 'draft',
      negated: false,
      attribute: 'draft',
      operator: null,
    });
  });

  it('-draft is a negated flag', () => {
    expect(parsed('-draft')).toMatchObject({ kind: 'flag', negated: true });
  });

  it('number>=100 compares the pull request number', () => {
    expect(parsed('number>=100')).toMatchObject({ kind: 'number', operator: '>=', value: 100 });
  });

  it('schedule=Mon-Fri 09:00-17:00[Europe/Paris] parses the window', () => {
    expect(parsed('schedule=Mon-Fri 09:00-17:00[Europe/Paris]')).toEqual({
      kind: 'schedule',
      source: 'schedule=Mon-Fri 09:00-17:00[Europe/Paris]',
      negated: false,
      attribute: 'schedule',
      operator: '=',
      schedule: { days: [1, 2, 3, 4, 5], times: [{ start: 540, end: 1020 }], timezone: 'Europe/Paris' },
    });
  });

  it('schedule!=Sat-Sun is outside the weekend', () => {
    expect(parsed('schedule!=Sat-Sun')).toMatchObject({ kind: 'schedule', operator: '!=' });
  });

  it('spaces around the operator are ignored', () => {
    expect(parsed('label = needs review')).toMatchObject({ value: 'needs review' });
  });

  it('surrounding spaces are trimmed, also from the label shown back', () => {
    expect(parsed('  label=x  ')).toMatchObject({ source: 'label=x', value: 'x' });
  });

  it('the value may contain operators', () => {
    expect(parsed('title=a>=b')).toMatchObject({ operator: '=', value: 'a>=b' });
  });

  it('>= is not read as > followed by =', () => {
    expect(parsed('#label>=1')).toMatchObject({ operator: '>=', value: 1 });
  });
});

describe('parseCondition — refused syntax', () => {
  it.each([
    ['', 'expected a condition such as label=hotfix, found an empty string'],
    ['   ', 'expected a condition such as label=hotfix, found an empty string'],
    ['lable=x', 'unknown attribute "lable" (did you mean "label"?)'],
    ['labels=x', 'unknown attribute "labels" (did you mean "label"?)'],
    ['check-sucess=ci', 'unknown attribute "check-sucess" (did you mean "check-success"?)'],
    ['Label=x', 'unknown attribute "Label" (did you mean "label"?)'],
    ['milestone=v1', 'unknown attribute "milestone"'],
    ['=x', 'expected an attribute such as label or check-success, found "=x"'],
    ['-', 'expected an attribute such as label or check-success, found ""'],
    ['#-label>0', 'write the negation before the count (-#label>0)'],
    ['label', 'label needs an operator and a value, e.g. label=hotfix'],
    ['-check-success', 'check-success needs an operator and a value, e.g. check-success=ci'],
    ['label=', 'expected a value after "=", found nothing'],
    ['label==x', 'expected =, found == (there is no double equals)'],
    ['label:x', 'expected an operator (=, !=, ~=, >=, >, <=, <) after "label", found ":x"'],
    ['label>=2', '">=" compares numbers; to count label values write #label>=N'],
    ['title<x', 'title compares with =, != or ~=, found "<"'],
    ['title~=(', 'invalid regular expression "(": Unterminated group'],
    ['files~=[a-', 'invalid regular expression "[a-": Unterminated character class'],
    ['#label', '#label needs a comparison, e.g. #label>=1'],
    ['#label>=two', 'expected a whole number after ">=", found "two"'],
    ['#label>=-1', 'expected a whole number after ">=", found "-1"'],
    ['#label~=x', '#label is a number; compare it with =, !=, >=, >, <= or <'],
    ['#title>3', '#title: only list attributes can be counted, and title is not one'],
    ['#draft', '#draft: only list attributes can be counted, and draft is not one'],
    ['draft=true', 'draft takes no operator or value; write draft or -draft'],
    ['number', 'number needs a comparison, e.g. number>=100'],
    ['number~=1', 'number is a number; compare it with =, !=, >=, >, <= or <'],
    ['number>x', 'expected a whole number after ">", found "x"'],
    [
      'schedule',
      'schedule takes = or != and a window, e.g. schedule=Mon-Fri 09:00-17:00[Europe/Paris]; found nothing',
    ],
    [
      'schedule~=Mon',
      'schedule takes = or != and a window, e.g. schedule=Mon-Fri 09:00-17:00[Europe/Paris]; found "~="',
    ],
    ['schedule=Mun-Fri', 'unknown day "Mun" (expected Mon, Tue, Wed, Thu, Fri, Sat or Sun)'],
    ['schedule=Mon-Fri[Mars/Olympus]', 'unknown time zone "Mars/Olympus" (expected e.g. Europe/Paris)'],
  ])('%j: %s', (text, message) => {
    expect(error(text)).toBe(message);
  });
});
