import type { CheckRun, CommitStatus, IssueComment, Label, PullRequest, Repository } from '../entities.ts';
import type { SandboxGithub } from '../model.ts';
import { fullName, repoWebUrl, type SandboxUrls } from '../rest/urls.ts';

/*
 * The sandbox's web pages: what github.com shows of a pull request, small. Every text a person
 * or a bot wrote (titles, bodies, comments, labels, logins, check run texts, branch names) is
 * hostile and goes through esc(); no script runs on these pages (the server's Content Security
 * Policy forbids it), and the only form posts a comment with the page's token.
 */

/** `&`, `<`, `>`, `"` and `'` as entities: safe in element content and in quoted attributes. */
export function esc(text: string | number): string {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** HTML comments (the app's idempotency keys) are not shown, as on github.com. */
function visibleText(markdown: string): string {
  return markdown.replace(/<!--[\s\S]*?-->/g, '').trim();
}

/** Preformatted user text: kept as written, line breaks included, escaped. */
function prose(markdown: string | null, className = 'prose'): string {
  const text = visibleText(markdown ?? '');
  return text === '' ? '' : `<div class="${className}">${esc(text)}</div>`;
}

function when(ms: number, now: number): string {
  const iso = new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const ago = Math.max(0, Math.round((now - ms) / 1000));
  const relative =
    ago < 60
      ? `${ago} s ago`
      : ago < 3_600
        ? `${Math.floor(ago / 60)} min ago`
        : `${Math.floor(ago / 3_600)} h ago`;
  return `<time datetime="${iso}" title="${iso}">${relative}</time>`;
}

/** A label as a chip in its colour (colours are six hex digits; anything else is grey). */
function labelChip(label: Pick<Label, 'name' | 'color'>): string {
  const color = /^[0-9a-f]{6}$/i.test(label.color) ? label.color : 'cccccc';
  const dark =
    Number.parseInt(color.slice(0, 2), 16) * 0.3 + Number.parseInt(color.slice(2, 4), 16) * 0.59 < 110;
  return `<span class="label" style="background:#${color};color:${dark ? '#fff' : '#1f2328'}">${esc(label.name)}</span>`;
}

export function pullState(pull: PullRequest): 'Merged' | 'Closed' | 'Draft' | 'Open' {
  if (pull.merged) return 'Merged';
  if (pull.state === 'closed') return 'Closed';
  return pull.draft ? 'Draft' : 'Open';
}

function stateBadge(pull: PullRequest): string {
  const state = pullState(pull);
  return `<span class="state state-${state.toLowerCase()}">${state}</span>`;
}

function runOutcome(run: CheckRun): string {
  return run.status === 'completed' ? (run.conclusion ?? 'completed') : run.status.replace('_', ' ');
}

function checkRunSection(run: CheckRun, now: number): string {
  const started = run.startedAt === null ? '' : ` · started ${when(run.startedAt, now)}`;
  return `<section class="check" data-check="${esc(run.name)}">
  <h3><span class="outcome outcome-${esc(runOutcome(run).replace(' ', '-'))}">${esc(runOutcome(run))}</span>
  ${esc(run.name)} <span class="muted">by ${esc(run.app.name)}${started}</span></h3>
  ${run.title ? `<p class="check-title">${esc(run.title)}</p>` : ''}
  ${prose(run.summary, 'prose check-summary')}
  ${prose(run.text, 'prose check-text')}
</section>`;
}

function statusSection(status: CommitStatus, now: number): string {
  return `<section class="check" data-status="${esc(status.context)}">
  <h3><span class="outcome outcome-${esc(status.state)}">${esc(status.state)}</span> ${esc(status.context)}
  <span class="muted">commit status by ${esc(status.creator.login)} · ${when(status.createdAt, now)}</span></h3>
  ${status.description ? `<p class="check-title">${esc(status.description)}</p>` : ''}
</section>`;
}

const reactionEmoji: Record<string, string> = {
  '+1': '👍',
  '-1': '👎',
  laugh: '😄',
  confused: '😕',
  heart: '❤️',
  hooray: '🎉',
  rocket: '🚀',
  eyes: '👀',
};

function commentSection(comment: IssueComment, now: number): string {
  const counts = new Map<string, number>();
  for (const r of comment.reactions) counts.set(r.content, (counts.get(r.content) ?? 0) + 1);
  const reactions = [...counts]
    .map(
      ([content, n]) =>
        `<span class="reaction" title="${esc(content)}">${reactionEmoji[content] ?? esc(content)} ${n}</span>`,
    )
    .join(' ');
  return `<article class="comment" id="comment-${comment.id}">
  <header><strong class="author">${esc(comment.user.login)}</strong>${comment.app ? ' <span class="bot">bot</span>' : ''}
  <span class="muted">commented ${when(comment.createdAt, now)}</span></header>
  ${prose(comment.body, 'prose comment-body')}
  ${reactions ? `<footer>${reactions}</footer>` : ''}
</article>`;
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
body { font: 14px/1.5 system-ui, sans-serif; color: #1f2328; max-width: 960px; margin: 0 auto; padding: 16px; }
a { color: #0969da; text-decoration: none; } a:hover { text-decoration: underline; }
.muted { color: #59636e; font-weight: normal; font-size: 13px; }
.banner { background: #fff8c5; border: 1px solid #d4a72c66; border-radius: 6px; padding: 6px 10px; font-size: 13px; }
.state { border-radius: 2em; padding: 2px 10px; color: #fff; font-size: 13px; }
.state-open { background: #1f883d; } .state-draft { background: #59636e; } .state-merged { background: #8250df; } .state-closed { background: #cf222e; }
.label { border-radius: 2em; padding: 0 8px; font-size: 12px; font-weight: 500; margin-right: 4px; }
.check, .comment { border: 1px solid #d1d9e0; border-radius: 6px; padding: 8px 12px; margin: 8px 0; }
.check h3 { font-size: 14px; margin: 0; }
.outcome { border-radius: 4px; padding: 0 6px; font-size: 12px; background: #eff2f5; }
.outcome-success { background: #dafbe1; } .outcome-failure, .outcome-error, .outcome-timed_out { background: #ffebe9; }
.outcome-in-progress, .outcome-queued, .outcome-pending { background: #fff8c5; }
.prose { white-space: pre-wrap; overflow-wrap: anywhere; font-family: ui-monospace, monospace; font-size: 12.5px; background: #f6f8fa; border-radius: 6px; padding: 8px; margin: 6px 0; }
.bot { border: 1px solid #d1d9e0; border-radius: 2em; padding: 0 6px; font-size: 11px; }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: 6px 8px; border-bottom: 1px solid #d1d9e0; vertical-align: top; }
textarea { width: 100%; box-sizing: border-box; font: inherit; }
</style>
</head>
<body>
<p class="banner">Trainyard sandbox: a simulated GitHub on this machine (loopback only). Nothing here is on github.com.</p>
${body}
</body>
</html>
`;
}

/** The page of one pull request: what it is, its checks, its comments, and a box to comment. */
export function pullRequestPage(params: {
  github: SandboxGithub;
  urls: SandboxUrls;
  repo: Repository;
  pull: PullRequest;
  /** Who may be chosen to comment: logins. */
  people: readonly string[];
  /** The form's token (the server checks it on POST). */
  formToken: string;
  notice?: string;
}): string {
  const { github, urls, repo, pull } = params;
  const now = github.clock.now();
  const repoUrl = repoWebUrl(urls, repo);
  const pullUrl = `${repoUrl}/pull/${pull.number}`;
  const labels = github.issues.labelsOf(repo, pull.number);
  const runs = github.checks.runsFor(repo, pull.headSha, { latestOnly: true });
  // The app's own check run first: it is what a person opening this page looks for.
  runs.sort((a, b) => Number(b.app.id === github.app.id) - Number(a.app.id === github.app.id));
  const statuses = github.checks.latestStatuses(repo, pull.headSha);
  const comments = github.issues.commentsOf(repo, pull.number);
  const people = params.people
    .map((login, i) => `<option value="${esc(login)}"${i === 0 ? ' selected' : ''}>${esc(login)}</option>`)
    .join('');
  const merged =
    pull.merged && pull.mergedAt !== null
      ? ` · merged by ${esc(pull.mergedBy?.login ?? 'someone')} ${when(pull.mergedAt, now)}`
      : '';
  const body = `<nav><a href="${esc(repoUrl)}">${esc(fullName(repo))}</a> / pull requests</nav>
<h1><span class="title">${esc(pull.title)}</span> <span class="muted">#${pull.number}</span></h1>
<p class="meta">${stateBadge(pull)} <strong class="author">${esc(pull.user.login)}</strong>
wants to merge <code>${esc(pull.head)}</code> into <code>${esc(pull.base)}</code>
<span class="muted">· opened ${when(pull.createdAt, now)}${merged}</span></p>
<p class="labels">${labels.map(labelChip).join('') || '<span class="muted">No labels</span>'}</p>
${prose(pull.body)}
${params.notice ? `<p class="banner notice">${esc(params.notice)}</p>` : ''}
<h2>Checks <span class="muted">on ${esc(pull.headSha.slice(0, 7))}</span></h2>
${runs.map((run) => checkRunSection(run, now)).join('\n') || (statuses.length === 0 ? '<p class="muted">No checks yet.</p>' : '')}
${statuses.map((status) => statusSection(status, now)).join('\n')}
<h2>Comments <span class="muted">(${comments.length})</span></h2>
${comments.map((comment) => commentSection(comment, now)).join('\n') || '<p class="muted">No comments yet.</p>'}
<form method="post" action="${esc(`${pullUrl}/comments`)}">
<h2>Add a comment</h2>
<p class="muted">Commands: <code>@${esc(github.app.slug)} queue</code>, <code>@${esc(github.app.slug)} dequeue</code>,
<code>@${esc(github.app.slug)} requeue</code>, <code>@${esc(github.app.slug)} refresh</code></p>
<textarea name="body" rows="4" required placeholder="@${esc(github.app.slug)} queue"></textarea>
<p><label>Comment as <select name="user">${people}</select></label>
<input type="hidden" name="token" value="${esc(params.formToken)}">
<button type="submit">Comment</button> · <a href="${esc(pullUrl)}">Refresh</a></p>
</form>`;
  return layout(`${pull.title} · #${pull.number} · ${fullName(repo)}`, body);
}

/** The repository's page: its open pull requests with their Trainyard check, and the latest closed. */
export function repositoryPage(params: {
  github: SandboxGithub;
  urls: SandboxUrls;
  repo: Repository;
}): string {
  const { github, urls, repo } = params;
  const now = github.clock.now();
  const repoUrl = repoWebUrl(urls, repo);
  const pulls = [...repo.pulls.values()].sort((a, b) => b.number - a.number);
  const open = pulls.filter((p) => p.state === 'open');
  const closed = pulls.filter((p) => p.state === 'closed').slice(0, 20);
  const trainyard = (pull: PullRequest) => {
    const [run] = github.checks.runsFor(repo, pull.headSha, { appId: github.app.id, latestOnly: true });
    return run
      ? `${esc(runOutcome(run))}${run.title ? `: ${esc(run.title)}` : ''}`
      : '<span class="muted">—</span>';
  };
  const row = (pull: PullRequest) => `<tr data-pull="${pull.number}">
  <td>${stateBadge(pull)}</td>
  <td><a href="${esc(`${repoUrl}/pull/${pull.number}`)}">${esc(pull.title)}</a> <span class="muted">#${pull.number} by ${esc(pull.user.login)} · ${when(pull.createdAt, now)}</span><br>
  ${github.issues.labelsOf(repo, pull.number).map(labelChip).join('')}</td>
  <td>${trainyard(pull)}</td>
</tr>`;
  const table = (rows: PullRequest[], empty: string) =>
    rows.length === 0
      ? `<p class="muted">${empty}</p>`
      : `<table><thead><tr><th>State</th><th>Pull request</th><th>Trainyard</th></tr></thead><tbody>
${rows.map(row).join('\n')}
</tbody></table>`;
  const body = `<h1>${esc(fullName(repo))}</h1>
<p class="muted">Default branch <code>${esc(repo.defaultBranch)}</code> at ${esc((repo.branches.get(repo.defaultBranch) ?? '').slice(0, 7))} · <a href="${esc(repoUrl)}">Refresh</a></p>
<h2>Open pull requests <span class="muted">(${open.length})</span></h2>
${table(open, 'No open pull requests.')}
<h2>Recently closed <span class="muted">(the last ${closed.length})</span></h2>
${table(closed, 'None yet.')}`;
  return layout(`Pull requests · ${fullName(repo)}`, body);
}

/** A page saying what went wrong (404, 403, 422), with a way back. */
export function messagePage(title: string, message: string, back?: string): string {
  return layout(
    title,
    `<h1>${esc(title)}</h1><p>${esc(message)}</p>${back ? `<p><a href="${esc(back)}">Back</a></p>` : ''}`,
  );
}
