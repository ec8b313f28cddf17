import type { CommandName, CommandProblem } from '../commands/parse-command.ts';

/*
 * Replies the shell words itself (STYLE.md G11): to a comment addressed to the app that is not
 * a command. Facts first, then what would work; no pretend-human chatter.
 */

const USAGE: Record<CommandName, { args: string; does: string }> = {
  queue: {
    args: ' [rule]',
    does: 'queue this pull request (in `rule`, or the first queue rule that accepts it)',
  },
  dequeue: { args: '', does: 'take it out of the queue' },
  requeue: { args: ' [rule]', does: 'queue it again after it left the queue' },
  refresh: { args: '', does: 'publish its Trainyard check run again' },
};

export function renderCommandProblem(problem: CommandProblem, params: { appSlug: string }): string {
  return `${renderProblem(problem, params.appSlug)}\n\n${renderCommandList(params.appSlug)}`;
}

function renderProblem(problem: CommandProblem, slug: string): string {
  switch (problem.kind) {
    case 'missing_command':
      return `\`@${slug}\` needs a command.`;
    case 'unknown_command': {
      const hint = problem.suggestion === null ? '' : ` Did you mean \`@${slug} ${problem.suggestion}\`?`;
      return `\`${problem.word}\` is not a command.${hint}`;
    }
    case 'unexpected_argument': {
      const { command, argument } = problem;
      const takes =
        USAGE[command].args === '' ? 'takes no argument' : 'takes one argument, a queue rule name';
      return `\`${command}\` ${takes}: \`${argument}\` is one too many.`;
    }
  }
}

function renderCommandList(slug: string): string {
  const lines = Object.entries(USAGE).map(
    ([name, usage]) => `- \`@${slug} ${name}${usage.args}\`: ${usage.does}`,
  );
  return ['Commands:', ...lines].join('\n');
}
