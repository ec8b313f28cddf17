import type { components } from '@octokit/openapi-types';
import type { IssueComment, Reaction, Repository } from '../entities.ts';
import { reactionContents } from '../issues.ts';
import { renderIntegration, renderSimpleUser } from './accounts.ts';
import { authorAssociation } from './pull-request.ts';
import { isoTime, nodeId, repoApiUrl, repoWebUrl, type SandboxUrls } from './urls.ts';

type Schemas = components['schemas'];

export function renderIssueComment(
  urls: SandboxUrls,
  repo: Repository,
  comment: IssueComment,
): Schemas['issue-comment'] {
  const api = `${repoApiUrl(urls, repo)}/issues/comments/${comment.id}`;
  const counts = Object.fromEntries(
    reactionContents.map((c) => [c, comment.reactions.filter((r) => r.content === c).length]),
  ) as Record<Reaction['content'], number>;
  return {
    id: comment.id,
    node_id: nodeId('IssueComment', comment.id),
    url: api,
    body: comment.body,
    html_url: `${repoWebUrl(urls, repo)}/pull/${comment.issueNumber}#issuecomment-${comment.id}`,
    user: renderSimpleUser(urls, comment.user),
    created_at: isoTime(comment.createdAt),
    updated_at: isoTime(comment.updatedAt),
    issue_url: `${repoApiUrl(urls, repo)}/issues/${comment.issueNumber}`,
    author_association: authorAssociation(repo, comment.user),
    performed_via_github_app: comment.app ? renderIntegration(urls, comment.app, repo.createdAt) : null,
    reactions: { url: `${api}/reactions`, total_count: comment.reactions.length, ...counts },
  };
}

export function renderReaction(urls: SandboxUrls, reaction: Reaction): Schemas['reaction'] {
  return {
    id: reaction.id,
    node_id: nodeId('Reaction', reaction.id),
    user: renderSimpleUser(urls, reaction.user),
    content: reaction.content,
    created_at: isoTime(reaction.createdAt),
  };
}
