import fc from 'fast-check';
import { bad, ok, type Part } from './fuzz-case.ts';
import type { FuzzFixtures } from './fuzz-seed.ts';
import { hostileAuthorizations } from './fuzz-values.ts';

export type Credential = keyof FuzzFixtures['tokens'] | null;

/** Whether a credential may do `need` on owner/repository (how seedFuzzStore made each one). */
export function mayAct(
  fx: FuzzFixtures,
  credential: Credential,
  [owner, repository]: [string, string],
  need: 'read' | 'write',
) {
  if (owner !== fx.owner) return false;
  switch (credential) {
    case 'admin':
    case 'githubWriter':
      return true;
    case 'reader':
    case 'githubReader':
      return need === 'read';
    case 'scoped':
      return repository === fx.repository;
    default:
      return false;
  }
}

/** Credentials: the seeded ones (allowed or not: decided with the path) and hostile headers. */
export function authorizationArb(fx: FuzzFixtures): fc.Arbitrary<Part<[string | null, Credential]>> {
  const names = Object.keys(fx.tokens) as (keyof FuzzFixtures['tokens'])[];
  const usual = names.filter((n) => !['otherRepository', 'foreignOwner', 'revoked'].includes(n));
  const seeded = (list: (keyof FuzzFixtures['tokens'])[], form: (token: string) => string) =>
    fc.constantFrom(...list).map((n): [string, Credential] => [form(fx.tokens[n]), n]);
  return fc.oneof(
    { weight: 10, arbitrary: ok(seeded(usual, (t) => `Bearer ${t}`)) },
    // The scheme is case-insensitive and spaces around the token are allowed.
    { weight: 1, arbitrary: ok(seeded(usual, (t) => `bearer   ${t}  `)) },
    {
      weight: 2,
      arbitrary: ok(seeded(['otherRepository', 'foreignOwner', 'revoked'], (t) => `Bearer ${t}`)),
    },
    { weight: 1, arbitrary: bad('no credential', fc.constant<[null, Credential]>([null, null]), () => '') },
    {
      weight: 2,
      arbitrary: bad(
        'authorization',
        fc.constantFrom(...hostileAuthorizations).map((h): [string, Credential] => [h, null]),
        ([h]) => h.slice(0, 40),
      ),
    },
  );
}
