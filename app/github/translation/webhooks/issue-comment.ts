import type { components } from '@octokit/openapi-webhooks-types';
import type { AccountType, QueueInput } from '../../../queue/inputs.ts';
import type { RepositoryClient } from '../../client/client.ts';
import { type ParsedComment, parseCommand } from '../../commands/parse-command.ts';
import { renderCommandProblem } from '../../render/comment.ts';

type Schemas = components['schemas'];

export type IssueCommentEvent = Schemas[`webhook-issue-comment-${'created' | 'edited' | 'deleted'}`];

export type Permission = Awaited<ReturnType<RepositoryClient['getPermission']>>;

export interface IssueCommentFacts {
  /** The GitHub App's slug: commands are `@<slug> …`. */
  appSlug: string;
  /** The comment author's permission on the repository; null when there was no command to check. */
  permission: Permission | null;
}

/** Write access, as GitHub's merge button asks for it. */
const MAY_RUN_COMMANDS: ReadonlySet<Permission> = new Set(['admin', 'maintain', 'write']);

/**
 * A new comment on a pull request, not written by the app itself (its replies list the
 * commands). Edited comments are not read again: a command runs once, when it is posted.
 */
function readComment(payload: IssueCommentEvent, appSlug: string): ParsedComment {
  if (payload.action !== 'created' || payload.issue.pull_request === undefined) return { kind: 'none' };
  if (payload.comment.user?.login.toLowerCase() === `${appSlug}[bot]`.toLowerCase()) return { kind: 'none' };
  return parseCommand(payload.comment.body ?? '', appSlug);
}

export async function fetchFacts(
  payload: IssueCommentEvent,
  ctx: { client: RepositoryClient; appSlug: string },
): Promise<IssueCommentFacts> {
  const parsed = readComment(payload, ctx.appSlug);
  const login = payload.comment.user?.login;
  if (parsed.kind !== 'command' || login === undefined) return { appSlug: ctx.appSlug, permission: null };
  return { appSlug: ctx.appSlug, permission: await ctx.client.getPermission(login) };
}

export function toInputs(payload: IssueCommentEvent, facts: IssueCommentFacts): QueueInput[] {
  const parsed = readComment(payload, facts.appSlug);
  const number = payload.issue.number;
  const commentId = payload.comment.id;
  switch (parsed.kind) {
    case 'none':
      return [];
    case 'invalid':
      return [
        {
          type: 'command_not_understood',
          number,
          commentId,
          reply: renderCommandProblem(parsed.problem, { appSlug: facts.appSlug }),
        },
      ];
    case 'command': {
      const user = payload.comment.user;
      if (user === null || facts.permission === null) return [];
      const { command } = parsed;
      return [
        {
          type: 'command_received',
          number,
          command: command.name,
          queueName: command.name === 'queue' || command.name === 'requeue' ? command.queueName : null,
          author: { id: user.id, login: user.login, type: accountType(user.type) },
          commentId,
          authorized: MAY_RUN_COMMANDS.has(facts.permission),
        },
      ];
    }
  }
}

function accountType(type: string | undefined): AccountType {
  switch (type) {
    case 'Bot':
    case 'Organization':
    case 'Mannequin':
    case 'Enterprise':
      return type;
    default:
      return 'User';
  }
}
