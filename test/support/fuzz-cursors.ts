import fc from 'fast-check';
import { bad, type FuzzCase, type FuzzContext, mostly, ok, type Part } from './fuzz-case.ts';
import { printable } from './fuzz-checks.ts';

/** Cursors that are not this query's: bytes flipped, truncated, re-encoded, foreign, junk. */
function tamperedCursor(ctx: FuzzContext): fc.Arbitrary<string> {
  const real = ctx.links
    .map((l) => new URL(l, 'http://x').searchParams.get('cursor'))
    .filter(Boolean) as string[];
  const source = fc.constantFrom(...(real.length > 0 ? real : ['eyJ2IjoxfQ']));
  const flipByte = fc.tuple(source, fc.nat(), fc.integer({ min: 0, max: 7 })).map(([cursor, at, bit]) => {
    const bytes = Buffer.from(cursor, 'base64url');
    const i = at % bytes.length;
    bytes[i] = bytes[i]! ^ (1 << bit);
    return bytes.toString('base64url');
  });
  const flipChar = fc.tuple(source, fc.nat()).map(([cursor, at]) => {
    const i = at % cursor.length;
    return `${cursor.slice(0, i)}${cursor[i] === 'A' ? 'B' : 'A'}${cursor.slice(i + 1)}`;
  });
  const rewritten = fc
    .tuple(
      source,
      fc.constantFrom<[string, unknown]>(
        ['id', '0'],
        ['id', '-1'],
        ['id', '9223372036854775808'],
        ['id', 'abc'],
        ['id', 1e308],
        ['id', null],
        ['k', 'x'],
        ['v', 2],
        ['q', ''],
        ['q', 0],
      ),
    )
    .map(([cursor, [field, value]]) => {
      let payload: Record<string, unknown>;
      try {
        payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      } catch {
        payload = {};
      }
      return Buffer.from(JSON.stringify({ ...payload, [field]: value })).toString('base64url');
    });
  const junk = fc.constantFrom(
    '',
    '=',
    'A'.repeat(1000),
    'A'.repeat(1001),
    Buffer.from('[]').toString('base64url'),
    Buffer.from('null').toString('base64url'),
    Buffer.from('{"v":1,"k":"o"}').toString('base64url'),
    'eyJ2IjoxfQ==',
  );
  const foreign = fc.constantFrom(...(ctx.foreignCursors.length > 0 ? ctx.foreignCursors : ['x']));
  return fc.oneof(
    flipByte,
    flipChar,
    rewritten,
    junk,
    foreign,
    source.map((c) => c.slice(0, -3)),
    source.map((c) => `${c}AA`),
  );
}

/** A real link with its cursor replaced by a tampered one. */
function tamperedLink(ctx: FuzzContext): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom(...ctx.links), tamperedCursor(ctx)).map(([l, cursor]) => {
    const url = new URL(l, 'http://x');
    url.searchParams.set('cursor', cursor);
    return `${url.pathname}${url.search}`;
  });
}

/** A real link, followed as it is (valid) or with its cursor tampered with. */
export function linkArb(ctx: FuzzContext): fc.Arbitrary<Part<string>> {
  return mostly(
    ok(fc.constantFrom(...ctx.links)),
    bad('cursor', tamperedLink(ctx), (t) => t.slice(-60)),
    1,
  );
}

/**
 * Reads of a real log link whose cursor was tampered with: refused as a 422, or, when the
 * change happens to leave another cursor of the same query, a page (200).
 */
export function tamperedCursorCaseArb(ctx: FuzzContext): fc.Arbitrary<FuzzCase> {
  const { fixtures: fx } = ctx;
  return fc
    .tuple(tamperedLink(ctx), fc.constantFrom(fx.tokens.admin, fx.tokens.reader, fx.tokens.githubReader))
    .map(([target, token]) =>
      printable({
        wire: { method: 'GET', target, headers: [['Authorization', `Bearer ${token}`]] },
        operation: 'GET /v1/repos/{owner}/{repository}/logs',
        valid: false,
        hostile: [`cursor: ${target.slice(-60)}`],
        expected: [200, 422],
      }),
    );
}
