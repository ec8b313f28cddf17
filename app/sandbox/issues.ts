import type {
  Account,
  GithubAppInfo,
  IssueComment,
  Label,
  PullRequest,
  Reaction,
  ReactionContent,
  Repository,
} from './entities.ts';
import { GithubError } from './github-error.ts';
import type { SandboxCore } from './sandbox-core.ts';

export const reactionContents: readonly ReactionContent[] = [
  '+1',
  '-1',
  'laugh',
  'confused',
  'heart',
  'hooray',
  'rocket',
  'eyes',
];

/** GitHub's colour for a label created implicitly by adding it to an issue. */
const implicitLabelColor = 'ededed';

/** The issue side of pull requests: comments, their reactions, and labels. */
export class IssueOperations {
  constructor(private readonly core: SandboxCore) {}

  /** Only pull requests are modelled; an issue number without a PR is not found. */
  private pull(repo: Repository, number: number): PullRequest {
    const pull = repo.pulls.get(number);
    if (!pull) throw GithubError.notFound();
    return pull;
  }

  comment(
    repo: Repository,
    params: { number: number; body: string; user: Account; app?: GithubAppInfo | null },
  ): IssueComment {
    const pull = this.pull(repo, params.number);
    if (!params.body)
      throw GithubError.validation({ resource: 'IssueComment', field: 'body', code: 'missing_field' });
    const now = this.core.clock.now();
    const comment: IssueComment = {
      id: this.core.ids.take('comment'),
      issueNumber: params.number,
      body: params.body,
      user: params.user,
      app: params.app ?? null,
      createdAt: now,
      updatedAt: now,
      reactions: [],
    };
    repo.comments.set(comment.id, comment);
    this.core.emit({ type: 'issue_comment', action: 'created', repo, pull, comment, sender: params.user });
    return comment;
  }

  editComment(repo: Repository, params: { id: number; body: string; sender: Account }): IssueComment {
    const comment = repo.comments.get(params.id);
    if (!comment) throw GithubError.notFound();
    if (comment.user.id !== params.sender.id)
      throw new GithubError(403, 'Resource not accessible by integration');
    const previousBody = comment.body;
    comment.body = params.body;
    comment.updatedAt = this.core.clock.now();
    const pull = this.pull(repo, comment.issueNumber);
    this.core.emit({
      type: 'issue_comment',
      action: 'edited',
      repo,
      pull,
      comment,
      sender: params.sender,
      previousBody,
    });
    return comment;
  }

  commentsOf(repo: Repository, number: number): IssueComment[] {
    this.pull(repo, number);
    return [...repo.comments.values()].filter((c) => c.issueNumber === number);
  }

  /** A repeated reaction (same user, same content) is the existing one: `created` says which. */
  react(
    repo: Repository,
    params: { commentId: number; content: string; user: Account },
  ): { reaction: Reaction; created: boolean } {
    const comment = repo.comments.get(params.commentId);
    if (!comment) throw GithubError.notFound();
    const content = reactionContents.find((c) => c === params.content);
    if (!content) throw GithubError.validation({ resource: 'Reaction', field: 'content', code: 'invalid' });
    const existing = comment.reactions.find((r) => r.user.id === params.user.id && r.content === content);
    if (existing) return { reaction: existing, created: false };
    const reaction = {
      id: this.core.ids.take('reaction'),
      user: params.user,
      content,
      createdAt: this.core.clock.now(),
    };
    comment.reactions.push(reaction);
    this.core.changes.comment(repo, comment);
    return { reaction, created: true };
  }

  createLabel(
    repo: Repository,
    params: { name: string; color?: string; description?: string | null },
  ): Label {
    const key = params.name.toLowerCase();
    const existing = repo.labels.get(key);
    if (existing) return existing;
    const label: Label = {
      id: this.core.ids.take('label'),
      name: params.name,
      color: params.color ?? implicitLabelColor,
      description: params.description ?? null,
      default: false,
    };
    repo.labels.set(key, label);
    this.core.changes.label(repo, key);
    return label;
  }

  labelsOf(repo: Repository, number: number): Label[] {
    return this.pull(repo, number).labels.map((name) => repo.labels.get(name.toLowerCase())!);
  }

  /** POST /issues/{n}/labels: unknown labels are created; each newly added one is announced. */
  addLabels(repo: Repository, params: { number: number; names: string[]; sender: Account }): Label[] {
    const pull = this.pull(repo, params.number);
    for (const name of params.names) {
      const label = this.createLabel(repo, { name });
      if (pull.labels.some((l) => l.toLowerCase() === label.name.toLowerCase())) continue;
      pull.labels.push(label.name);
      pull.updatedAt = this.core.clock.now();
      this.core.emit({ type: 'pull_request', action: 'labeled', repo, pull, sender: params.sender, label });
    }
    return this.labelsOf(repo, params.number);
  }

  /** DELETE /issues/{n}/labels/{name}: 404 when the PR does not carry it. */
  removeLabel(repo: Repository, params: { number: number; name: string; sender: Account }): Label[] {
    const pull = this.pull(repo, params.number);
    const index = pull.labels.findIndex((l) => l.toLowerCase() === params.name.toLowerCase());
    if (index < 0) throw new GithubError(404, 'Label does not exist');
    const [name] = pull.labels.splice(index, 1);
    pull.updatedAt = this.core.clock.now();
    const label = repo.labels.get(name!.toLowerCase())!;
    this.core.emit({ type: 'pull_request', action: 'unlabeled', repo, pull, sender: params.sender, label });
    return this.labelsOf(repo, params.number);
  }
}
