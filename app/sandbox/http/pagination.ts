import { GithubError } from '../github-error.ts';

export interface Page<T> {
  items: T[];
  /** RFC 8288 Link header, or null when everything fits on one page. */
  link: string | null;
}

/**
 * GitHub's page-number pagination: `per_page` (default 30, at most 100) and `page` (from 1),
 * with a Link header carrying `prev`, `next`, `last` and `first` as the page calls for.
 */
export function paginate<T>(items: readonly T[], requestUrl: URL): Page<T> {
  const perPage = readPositive(requestUrl.searchParams.get('per_page'), 30, 'per_page');
  const page = readPositive(requestUrl.searchParams.get('page'), 1, 'page');
  const size = Math.min(perPage, 100);
  const last = Math.max(1, Math.ceil(items.length / size));
  const slice = items.slice((page - 1) * size, page * size);
  const at = (n: number) => {
    const url = new URL(requestUrl);
    url.searchParams.set('per_page', String(size));
    url.searchParams.set('page', String(n));
    return url.toString();
  };
  const links: string[] = [];
  if (page > 1) links.push(`<${at(Math.min(page - 1, last))}>; rel="prev"`);
  if (page < last) links.push(`<${at(page + 1)}>; rel="next"`, `<${at(last)}>; rel="last"`);
  if (page > 1) links.push(`<${at(1)}>; rel="first"`);
  return { items: slice, link: links.length > 0 ? links.join(', ') : null };
}

function readPositive(raw: string | null, fallback: number, name: string): number {
  if (raw === null || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw GithubError.validation({ resource: 'Search', field: name, code: 'invalid' });
  }
  return value;
}
