import type { EntryRefusal, Reply } from '../../queue/effects.ts';
import type { CommandName, CommandProblem } from '../commands/parse-command.ts';

/*
 * The words of the app's replies to comments addressed to it: the engine's answers to commands
 * (from the facts of a post_comment effect) and the shell's own to a comment that is not a
 * command. Facts first, then what would work; no pretend-human chatter.
 */

export function renderReply(reply: Reply): string {
  switch (reply.kind) {
    case 'not_authorized':
      return `@${reply.login} cannot run \`${reply.command}\`: merge queue commands need write access to this repository.`;
    case 'not_in_queue':
      return 'This pull request is not in the merge queue.';
    case 'already_queued':
      return `This pull request is already queued in \`${reply.queueName}\`.`;
    case 'not_queued':
      return `Not queued. ${renderRefusal(reply.refusal)}`;
    case 'command_not_understood':
      return reply.text;
  }
}

function renderRefusal(refusal: EntryRefusal): string {
  switch (refusal.kind) {
    case 'unknown_rule': {
      const names = refusal.rules.map((name) => `\`${name}\``).join(', ');
      return `There is no queue rule named \`${refusal.queueName}\` (rules: ${names}).`;
    }
    case 'conditions_not_met':
      return refusal.rules
        .map(({ name, unmet }) =>
          [
            `The queue conditions of rule \`${name}\` are not met:`,
            ...unmet.map((label) => `- \`${label}\``),
          ].join('\n'),
        )
        .join('\n');
    case 'no_automatic_rule':
      return 'No queue rule accepts pull requests automatically.';
    case 'pull_request_not_seen':
      return 'Trainyard has not seen this pull request yet; try again in a moment.';
    case 'pull_request_not_open':
      return 'GitHub says this pull request is closed: only open pull requests can be queued. Reopen it, then comment the command again.';
    case 'pull_request_unreadable':
      return `Trainyard could not read this pull request from GitHub (${refusal.reason}). Comment the command again in a few minutes; if this answer comes back, check that the app is installed on this repository with read access to pull requests.`;
  }
}

const USAGE: Record<CommandName, { args: string; does: string }> = {
  queue: {
    args: ' [rule]',
    does: 'queue this pull request (in `rule`, or the first queue rule that accepts it)',
  },
  dequeue: { args: '', does: 'take it out of the queue' },
  requeue: { args: ' [rule]', does: 'queue it again after it left the queue' },
  refresh: { args: '', does: 'publish its Trainyard check run again' },
};

/** The shell's answer to a comment addressed to the app that is not a command, with the commands. */
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
