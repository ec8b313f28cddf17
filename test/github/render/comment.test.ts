import { describe, expect, it } from 'vitest';
import { renderCommandProblem } from '../../../app/github/render/comment.ts';

const slug = { appSlug: 'trainyard' };

describe('replies to comments that are not commands', () => {
  it('the mention alone', () => {
    expect(renderCommandProblem({ kind: 'missing_command' }, slug)).toMatchInlineSnapshot(`
      "\`@trainyard\` needs a command.

      Commands:
      - \`@trainyard queue [rule]\`: queue this pull request (in \`rule\`, or the first queue rule that accepts it)
      - \`@trainyard dequeue\`: take it out of the queue
      - \`@trainyard requeue [rule]\`: queue it again after it left the queue
      - \`@trainyard refresh\`: publish its Trainyard check run again"
    `);
  });

  it('an unknown word with a likely meaning', () => {
    const problem = { kind: 'unknown_command', word: 'queu', suggestion: 'queue' } as const;
    expect(renderCommandProblem(problem, slug).split('\n')[0]).toMatchInlineSnapshot(
      `"\`queu\` is not a command. Did you mean \`@trainyard queue\`?"`,
    );
  });

  it('an unknown word without one', () => {
    const problem = { kind: 'unknown_command', word: 'merge', suggestion: null } as const;
    expect(renderCommandProblem(problem, slug).split('\n')[0]).toMatchInlineSnapshot(
      `"\`merge\` is not a command."`,
    );
  });

  it('an argument to a command that takes none', () => {
    const problem = { kind: 'unexpected_argument', command: 'refresh', argument: 'now' } as const;
    expect(renderCommandProblem(problem, slug).split('\n')[0]).toMatchInlineSnapshot(
      `"\`refresh\` takes no argument: \`now\` is one too many."`,
    );
  });

  it('a second argument to queue', () => {
    const problem = { kind: 'unexpected_argument', command: 'queue', argument: 'please' } as const;
    expect(renderCommandProblem(problem, slug).split('\n')[0]).toMatchInlineSnapshot(
      `"\`queue\` takes one argument, a queue rule name: \`please\` is one too many."`,
    );
  });

  it("the commands are listed with the app's own slug", () => {
    const reply = renderCommandProblem({ kind: 'missing_command' }, { appSlug: 'merge-train' });
    expect(reply).toContain('- `@merge-train dequeue`: take it out of the queue');
    expect(reply).not.toContain('@trainyard');
  });
});
