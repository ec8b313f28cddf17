import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Repository, Role } from '../entities.ts';
import { GithubError } from '../github-error.ts';
import type { RouteContext } from '../http/route-context.ts';
import { repoWebUrl } from '../rest/urls.ts';
import { messagePage, pullRequestPage, repositoryPage } from '../web/pages.ts';

/** What the pages allow: their own styles and forms, nothing else (no script, no frame, no outside request). */
const contentSecurityPolicy =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Host names a browser on this machine uses for the sandbox; any other is a rebound DNS name. */
const loopbackNames = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The longest comment the form accepts (GitHub's own limit). */
const maxCommentLength = 65_536;

type WebParams = { owner: string; repo: string; number?: string };

const roleRank: readonly Role[] = ['admin', 'maintain', 'write', 'triage', 'read'];

/**
 * The pages a person opens from the URLs the API returns (`html_url`, `…/web/owner/repo/pull/9`):
 * a pull request with its checks and comments and a box to comment as one of the demo's people
 * (so `@trainyard queue` can be typed by hand), and the repository's list of pull requests. On
 * loopback only, as the whole sandbox: the Host header must name loopback (a DNS name rebound to
 * 127.0.0.1 is refused), and a comment needs the token of a page this server rendered.
 */
export function registerWebRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { github, urls } = ctx;
  const formToken = randomBytes(18).toString('base64url');

  /** The repository's collaborators, the most powerful first: who may comment from the page. */
  const peopleOf = (repo: Repository): string[] =>
    [...repo.collaborators]
      .sort(([, a], [, b]) => roleRank.indexOf(a) - roleRank.indexOf(b))
      .map(([login]) => github.findAccount(login)?.login ?? login);

  const html = (reply: FastifyReply, status: number, page: string) =>
    reply
      .code(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', contentSecurityPolicy)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store')
      .send(page);

  const guard = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const host = (request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    if (loopbackNames.has(host)) return true;
    void html(reply, 421, messagePage('Not here', 'The sandbox answers on loopback addresses only.'));
    return false;
  };

  const find = (request: FastifyRequest, reply: FastifyReply): Repository | null => {
    const { owner, repo: name } = request.params as WebParams;
    const repo = github.repository(owner, name);
    if (repo) return repo;
    void html(
      reply,
      404,
      messagePage('Not found', `There is no repository ${owner}/${name} in this sandbox.`),
    );
    return null;
  };

  const pullOf = (request: FastifyRequest, reply: FastifyReply, repo: Repository) => {
    const n = Number((request.params as WebParams).number);
    const pull = Number.isInteger(n) && n > 0 ? repo.pulls.get(n) : undefined;
    if (pull) return pull;
    void html(
      reply,
      404,
      messagePage(
        'Not found',
        `There is no pull request #${String((request.params as WebParams).number)}.`,
        repoWebUrl(urls, repo),
      ),
    );
    return null;
  };

  app.get('/web/:owner/:repo', async (request, reply) => {
    if (!guard(request, reply)) return reply;
    const repo = find(request, reply);
    if (!repo) return reply;
    return html(reply, 200, repositoryPage({ github, urls, repo }));
  });

  app.get('/web/:owner/:repo/pull/:number', async (request, reply) => {
    if (!guard(request, reply)) return reply;
    const repo = find(request, reply);
    const pull = repo && pullOf(request, reply, repo);
    if (!repo || !pull) return reply;
    return html(reply, 200, pullRequestPage({ github, urls, repo, pull, people: peopleOf(repo), formToken }));
  });

  app.post('/web/:owner/:repo/pull/:number/comments', async (request, reply) => {
    if (!guard(request, reply)) return reply;
    const repo = find(request, reply);
    const pull = repo && pullOf(request, reply, repo);
    if (!repo || !pull) return reply;
    const form = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<
      string,
      unknown
    >;
    const pullUrl = `${repoWebUrl(urls, repo)}/pull/${pull.number}`;
    const token = Buffer.from(typeof form.token === 'string' ? form.token : '');
    if (token.length !== formToken.length || !timingSafeEqual(token, Buffer.from(formToken)))
      return html(
        reply,
        403,
        messagePage('Refused', 'This form is out of date: reload the page and try again.', pullUrl),
      );
    const login = typeof form.user === 'string' ? form.user : '';
    const user = peopleOf(repo).includes(login) ? github.findAccount(login) : undefined;
    if (!user)
      return html(
        reply,
        422,
        messagePage('Refused', `${login} is not one of this sandbox's people.`, pullUrl),
      );
    const body = typeof form.body === 'string' ? form.body.replace(/\r\n/g, '\n').trim() : '';
    if (body === '' || body.length > maxCommentLength)
      return html(
        reply,
        422,
        messagePage('Refused', 'A comment needs some text (at most 65,536 characters).', pullUrl),
      );
    try {
      const comment = github.issues.comment(repo, { number: pull.number, body, user });
      // After a POST, a GET: reloading the page does not post the comment again.
      return reply.code(303).header('location', `${pullUrl}#comment-${comment.id}`).send();
    } catch (error) {
      if (error instanceof GithubError)
        return html(reply, error.status, messagePage('Refused', error.message, pullUrl));
      throw error;
    }
  });
}
