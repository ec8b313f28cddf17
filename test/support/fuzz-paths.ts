import fc from 'fast-check';
import { bad, type Part, text } from './fuzz-case.ts';
import { encodeValue, hostileTexts } from './fuzz-values.ts';

const HUGE = 100_000;

export const hostileHosts = [
  'exa mple',
  'a/b',
  '[::1',
  '%',
  'localhost:99999',
  '',
  'x'.repeat(300),
  '@evil',
  'h:1:2',
  '\u00ff',
  'a\\b',
  '?x',
];

/** Path segments for {owner}/{repository}: traversal, encoded slashes, sizes, bad escapes. */
export const hostileSegments: fc.Arbitrary<Part<string>> = fc.oneof(
  bad(
    'segment',
    fc.constantFrom(
      '..',
      '.',
      '%2e%2e',
      '..%2F..',
      'acme%2Fwidgets',
      '%2F',
      '%00',
      '%',
      '%zz',
      '%E0%A4%A',
      '%C0%AF',
      '%ED%A0%80',
      '\u00e9',
      'o'.repeat(41),
      'r'.repeat(101),
      'w'.repeat(600),
      'w'.repeat(HUGE),
    ),
  ),
  bad(
    'segment',
    fc.constantFrom(...hostileTexts.slice(0, 30)).map((s) => encodeValue(text(s))),
    (s) => s.slice(0, 40),
  ),
);

/** Rewrites of the whole target: traversal, doubled or trailing slashes, matrix and absolute forms. */
export const targetMutations: readonly [string, (target: string, repo: string) => string][] = [
  ['../ into another repository', (t, repo) => t.replace(`/${repo}/`, `/${repo}/../other/`)],
  ['%2F between segments', (t, repo) => t.replace(`/${repo}/`, `%2F${repo}%2F`)],
  ['%2e%2e segment', (t, repo) => t.replace(`/${repo}/`, `/${repo}/%2e%2e/${repo}/`)],
  ['trailing slash', (t) => t.replace(/(\?|$)/, '/$1')],
  ['doubled slash', (t) => `/${t}`],
  ['dot segment', (t) => t.replace('/v1/', '/v1/./')],
  ['matrix parameter', (t) => t.replace(/(\?|$)/, ';x=1$1')],
  ['fragment', (t) => `${t}#frag`],
  ['absolute form', (t) => `http://127.0.0.1${t}`],
  ['no leading slash', (t) => t.slice(1)],
  ['backslash', (t) => t.replace('/v1/', '\\v1\\')],
];
