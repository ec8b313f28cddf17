import { describe, expect, it } from 'vitest';
import { routeTemplate } from '../../../app/github/client/request-observer.ts';

describe('routeTemplate: one label per GitHub route, never a value', () => {
  it.each([
    ['/repos/{owner}/{repo}/pulls/{pull_number}/reviews', '/repos/{owner}/{repo}/pulls/{number}/reviews'],
    // Pagination follows Link URLs: absolute, with the values and a query.
    [
      'https://ghe.test/api/v3/repos/acme/widgets/pulls/12/reviews?per_page=100&page=2',
      '/repos/{owner}/{repo}/pulls/{number}/reviews',
    ],
    [
      '/repos/acme/widgets/commits/0123456789abcdef0123456789abcdef01234567/check-runs',
      '/repos/{owner}/{repo}/commits/{ref}/check-runs',
    ],
    ['/repos/{owner}/{repo}/commits/{ref}/check-runs', '/repos/{owner}/{repo}/commits/{ref}/check-runs'],
    [
      '/repos/acme/widgets/git/refs/heads/trainyard/merge-queue/1a2b3c4d',
      '/repos/{owner}/{repo}/git/refs/{ref}',
    ],
    [
      '/repos/acme/widgets/branches/release%2F1.x/protection',
      '/repos/{owner}/{repo}/branches/{ref}/protection',
    ],
    ['/repos/{owner}/{repo}/branches/{branch}/protection', '/repos/{owner}/{repo}/branches/{ref}/protection'],
    ['/repos/acme/widgets/contents/.github/trainyard.yml', '/repos/{owner}/{repo}/contents/{path}'],
    ['/app/installations/{installation_id}/access_tokens', '/app/installations/{number}/access_tokens'],
    ['/app/installations/77/access_tokens', '/app/installations/{number}/access_tokens'],
    ['/app', '/app'],
  ])('%s → %s', (url, route) => {
    expect(routeTemplate(url)).toBe(route);
  });
});
