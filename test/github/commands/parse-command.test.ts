import { describe, expect, test } from 'vitest';
import { type ParsedComment, parseCommand } from '../../../app/github/commands/parse-command.ts';

// One syntax case per test, as bors's command/parser.rs does.

const parse = (body: string): ParsedComment => parseCommand(body, 'trainyard');
const queue = (queueName: string | null = null): ParsedComment => ({
  kind: 'command',
  command: { name: 'queue', queueName },
});
const requeue = (queueName: string | null = null): ParsedComment => ({
  kind: 'command',
  command: { name: 'requeue', queueName },
});
const dequeue: ParsedComment = { kind: 'command', command: { name: 'dequeue' } };
const refresh: ParsedComment = { kind: 'command', command: { name: 'refresh' } };
const none: ParsedComment = { kind: 'none' };

describe('no command', () => {
  test('an empty comment', () => {
    expect(parse('')).toEqual(none);
  });

  test('a comment without a mention', () => {
    expect(parse('Looks good to me')).toEqual(none);
  });

  test('the command word without the mention', () => {
    expect(parse('queue')).toEqual(none);
  });

  test('a mention of another user', () => {
    expect(parse('@octocat queue')).toEqual(none);
  });

  test('a login that starts with the slug', () => {
    expect(parse('@trainyardx queue')).toEqual(none);
  });

  test('a login that extends the slug with a hyphen', () => {
    expect(parse('@trainyard-bot queue')).toEqual(none);
  });

  test('the slug without @', () => {
    expect(parse('trainyard queue')).toEqual(none);
  });

  test('a mention in the middle of a line', () => {
    expect(parse('please @trainyard queue')).toEqual(none);
  });

  test('a mention at the end of a sentence', () => {
    expect(parse('thanks, @trainyard')).toEqual(none);
  });

  test('an e-mail address containing the slug', () => {
    expect(parse('me@trainyard queue')).toEqual(none);
  });
});

describe('queue', () => {
  test('without a rule', () => {
    expect(parse('@trainyard queue')).toEqual(queue());
  });

  test('with a rule', () => {
    expect(parse('@trainyard queue hotfix')).toEqual(queue('hotfix'));
  });

  test('a rule name keeps its case', () => {
    expect(parse('@trainyard queue Fast-Lane')).toEqual(queue('Fast-Lane'));
  });

  test('a rule name with dots and slashes', () => {
    expect(parse('@trainyard queue release/1.2')).toEqual(queue('release/1.2'));
  });

  test('a second argument is rejected', () => {
    expect(parse('@trainyard queue hotfix now')).toEqual({
      kind: 'invalid',
      problem: { kind: 'unexpected_argument', command: 'queue', argument: 'now' },
    });
  });

  test('trailing spaces', () => {
    expect(parse('@trainyard queue   ')).toEqual(queue());
  });

  test('several spaces between words', () => {
    expect(parse('@trainyard    queue    hotfix')).toEqual(queue('hotfix'));
  });

  test('tabs between words', () => {
    expect(parse('@trainyard\tqueue\thotfix')).toEqual(queue('hotfix'));
  });

  test('the command word in capitals', () => {
    expect(parse('@trainyard QUEUE')).toEqual(queue());
  });

  test('the command word capitalized', () => {
    expect(parse('@trainyard Queue')).toEqual(queue());
  });
});

describe('requeue', () => {
  test('without a rule', () => {
    expect(parse('@trainyard requeue')).toEqual(requeue());
  });

  test('with a rule', () => {
    expect(parse('@trainyard requeue default')).toEqual(requeue('default'));
  });

  test('a second argument is rejected', () => {
    expect(parse('@trainyard requeue default please')).toEqual({
      kind: 'invalid',
      problem: { kind: 'unexpected_argument', command: 'requeue', argument: 'please' },
    });
  });
});

describe('dequeue', () => {
  test('alone', () => {
    expect(parse('@trainyard dequeue')).toEqual(dequeue);
  });

  test('an argument is rejected', () => {
    expect(parse('@trainyard dequeue hotfix')).toEqual({
      kind: 'invalid',
      problem: { kind: 'unexpected_argument', command: 'dequeue', argument: 'hotfix' },
    });
  });

  test('in capitals', () => {
    expect(parse('@trainyard DEQUEUE')).toEqual(dequeue);
  });
});

describe('refresh', () => {
  test('alone', () => {
    expect(parse('@trainyard refresh')).toEqual(refresh);
  });

  test('an argument is rejected', () => {
    expect(parse('@trainyard refresh now')).toEqual({
      kind: 'invalid',
      problem: { kind: 'unexpected_argument', command: 'refresh', argument: 'now' },
    });
  });
});

describe('the mention', () => {
  test('the slug in capitals', () => {
    expect(parse('@TRAINYARD queue')).toEqual(queue());
  });

  test('the slug in mixed case', () => {
    expect(parse('@TrainYard queue')).toEqual(queue());
  });

  test("the app account's [bot] login", () => {
    expect(parse('@trainyard[bot] queue')).toEqual(queue());
  });

  test('another slug', () => {
    expect(parseCommand('@merge-train queue', 'merge-train')).toEqual(queue());
  });

  test('a slug with regular-expression characters is matched literally', () => {
    expect(parseCommand('@mergeXtrain queue', 'merge.train')).toEqual(none);
  });

  test('leading spaces', () => {
    expect(parse('  @trainyard queue')).toEqual(queue());
  });

  test('three leading spaces', () => {
    expect(parse('   @trainyard queue')).toEqual(queue());
  });
});

describe('missing and unknown commands', () => {
  test('the mention alone', () => {
    expect(parse('@trainyard')).toEqual({ kind: 'invalid', problem: { kind: 'missing_command' } });
  });

  test('the mention followed by spaces', () => {
    expect(parse('@trainyard   ')).toEqual({ kind: 'invalid', problem: { kind: 'missing_command' } });
  });

  test('an unknown word', () => {
    expect(parse('@trainyard merge')).toEqual({
      kind: 'invalid',
      problem: { kind: 'unknown_command', word: 'merge', suggestion: null },
    });
  });

  test('a misspelt command suggests the closest', () => {
    expect(parse('@trainyard queu')).toEqual({
      kind: 'invalid',
      problem: { kind: 'unknown_command', word: 'queu', suggestion: 'queue' },
    });
  });

  test('swapped letters suggest the command', () => {
    expect(parse('@trainyard reqeueu')).toMatchObject({
      problem: { kind: 'unknown_command', suggestion: 'requeue' },
    });
  });

  test('a command with punctuation suggests the command', () => {
    expect(parse('@trainyard refresh!')).toEqual({
      kind: 'invalid',
      problem: { kind: 'unknown_command', word: 'refresh!', suggestion: 'refresh' },
    });
  });

  test('the unknown word keeps its case', () => {
    expect(parse('@trainyard Merge')).toMatchObject({ problem: { word: 'Merge' } });
  });

  test('bors syntax is unknown', () => {
    expect(parse('@trainyard r+')).toMatchObject({ problem: { kind: 'unknown_command', word: 'r+' } });
  });

  test('a colon after the mention is not a command', () => {
    expect(parse('@trainyard: queue')).toEqual(none);
  });
});

describe('several lines', () => {
  test('a command after text', () => {
    expect(parse('Ready now.\n@trainyard queue')).toEqual(queue());
  });

  test('a command before text', () => {
    expect(parse('@trainyard queue\nThanks!')).toEqual(queue());
  });

  test('the first command wins', () => {
    expect(parse('@trainyard dequeue\n@trainyard queue')).toEqual(dequeue);
  });

  test('the first line addressed to the app wins even when it is invalid', () => {
    expect(parse('@trainyard merge\n@trainyard queue')).toMatchObject({ kind: 'invalid' });
  });

  test('Windows line endings', () => {
    expect(parse('LGTM\r\n@trainyard queue hotfix\r\n')).toEqual(queue('hotfix'));
  });

  test('old Mac line endings', () => {
    expect(parse('LGTM\r@trainyard refresh')).toEqual(refresh);
  });

  test('a blank line before the command', () => {
    expect(parse('\n\n@trainyard queue')).toEqual(queue());
  });
});

describe('quotes', () => {
  test('a quoted command', () => {
    expect(parse('> @trainyard queue')).toEqual(none);
  });

  test('a quoted command without a space after >', () => {
    expect(parse('>@trainyard queue')).toEqual(none);
  });

  test('a nested quote', () => {
    expect(parse('>> @trainyard queue')).toEqual(none);
  });

  test('an indented quote', () => {
    expect(parse('  > @trainyard queue')).toEqual(none);
  });

  test('a reply below a quoted command', () => {
    expect(parse('> @trainyard queue\n\n@trainyard dequeue')).toEqual(dequeue);
  });

  test('a line right under a quote continues it', () => {
    expect(parse('> Ready?\n@trainyard queue')).toEqual(none);
  });

  test('a quote ends at a blank line', () => {
    expect(parse('> Ready?\n\n@trainyard queue')).toEqual(queue());
  });
});

describe('code', () => {
  test('a command in a fenced code block', () => {
    expect(parse('```\n@trainyard queue\n```')).toEqual(none);
  });

  test('a command in a fenced code block with a language', () => {
    expect(parse('```text\n@trainyard queue\n```')).toEqual(none);
  });

  test('a command in a tilde fence', () => {
    expect(parse('~~~\n@trainyard queue\n~~~')).toEqual(none);
  });

  test('a command after a closed fence', () => {
    expect(parse('```\nnpm test\n```\n@trainyard queue')).toEqual(queue());
  });

  test('a shorter closing fence does not close the block', () => {
    expect(parse('````\n```\n@trainyard queue\n````')).toEqual(none);
  });

  test('a tilde line does not close a backtick fence', () => {
    expect(parse('```\n~~~\n@trainyard queue\n```')).toEqual(none);
  });

  test('a fence with text after it does not close the block', () => {
    expect(parse('```\n``` not a fence\n@trainyard queue\n```')).toEqual(none);
  });

  test('an unclosed fence hides the rest of the comment', () => {
    expect(parse('```\n@trainyard queue')).toEqual(none);
  });

  test('an indented fence', () => {
    expect(parse('  ```\n@trainyard queue\n  ```')).toEqual(none);
  });

  test('inline code', () => {
    expect(parse('`@trainyard queue`')).toEqual(none);
  });

  test('inline code in a sentence', () => {
    expect(parse('Type `@trainyard queue` to queue it')).toEqual(none);
  });

  test('an indented code block (4 spaces)', () => {
    expect(parse('Example:\n\n    @trainyard queue')).toEqual(none);
  });

  test('an indented code block (tab)', () => {
    expect(parse('\t@trainyard queue')).toEqual(none);
  });
});

describe('HTML comments', () => {
  test('a command in a one-line comment', () => {
    expect(parse('<!-- @trainyard queue -->')).toEqual(none);
  });

  test('a command in a comment over several lines', () => {
    expect(parse('<!--\n@trainyard queue\n-->')).toEqual(none);
  });

  test('a command after a comment over several lines', () => {
    expect(parse('<!--\nnotes\n-->\n@trainyard refresh')).toEqual(refresh);
  });

  test('a comment after the command is not an argument', () => {
    expect(parse('@trainyard queue <!-- hotfix -->')).toEqual(queue());
  });

  test('a comment opened after the command hides what follows', () => {
    expect(parse('@trainyard dequeue <!-- later\n@trainyard queue\n-->')).toEqual(dequeue);
  });
});
