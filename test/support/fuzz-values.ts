/*
 * Hostile values for the API fuzzer: inputs that have broken HTTP servers, parsers and
 * databases before. Plain tables, so a report can name the value that hurt.
 */

/** A query or path value: text (percent-encoded as UTF-8 when sent) or raw (sent as is, latin1). */
export type WireValue = { text: string } | { raw: string };

const HUGE = 100_000;

/** Text that is hard on parsers, validators and the database (NUL, surrogates, sizes, syntax). */
export const hostileTexts: readonly string[] = [
  '',
  ' ',
  '\t',
  'a b',
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udfffy',
  '\udc00\ud800',
  '😀',
  'é',
  '\u202eevil',
  '\ufeffbom',
  '\uffff',
  '\u{10ffff}',
  "' OR '1'='1",
  '1; DROP TABLE events --',
  '$1',
  '\\',
  '"',
  '%',
  '{}',
  '[]',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  '../../etc/passwd',
  '..%2F..%2F',
  '<script>alert(1)</script>',
  'a'.repeat(256),
  'a'.repeat(1001),
  'a'.repeat(HUGE),
  'é'.repeat(HUGE / 2),
];

/** Raw request-target fragments: broken %-escapes, invalid UTF-8, separators, bytes ≥ 0x80. */
export const hostileRaw: readonly string[] = [
  '%',
  '%zz',
  '%E0%A4%A',
  '%C0%AF',
  '%ED%A0%80',
  '%FF',
  '%00',
  '%2F',
  '%2e%2e',
  '%u0041',
  '\u0080\u00ff',
  '\u00e9',
  '+',
  '&',
  '=',
  '%25',
  '%%41',
];

/** Number texts at and beyond the edges of every integer and float type. */
export const hostileNumbers: readonly string[] = [
  'NaN',
  '-0',
  '0',
  '-1',
  '1.5',
  '1e3',
  '9223372036854775807',
  '9223372036854775808',
  '18446744073709551616',
  '1e308',
  '1e309',
  '-1e308',
  'Infinity',
  '-Infinity',
  '0x10',
  '0b1',
  '010',
  ' 1',
  '1 ',
  '+1',
  '１',
  '2147483647',
  '2147483648',
  '4294967296',
  '.5',
  '5.',
  '1_000',
  '',
];

/** Dates at the edges of every calendar and clock: years 0 and 9999, 1970, leap seconds, junk. */
export const hostileDates: readonly string[] = [
  '0000-01-01',
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00Z',
  '1969-12-31T23:59:59Z',
  '1970-01-01',
  '1970-01-01T00:00:00Z',
  '1970-01-01T00:00:00+01:00',
  '9998-12-31T23:59:59Z',
  '9998-12-31T23:59:59.999Z',
  '9999-01-01',
  '9999-12-31',
  '9999-12-31T23:59:59Z',
  '9999-12-31T23:59:59-23:59',
  '10000-01-01T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '2016-12-31T23:59:60Z',
  '2026-06-30T23:59:60Z',
  '2026-02-29',
  '2024-02-29',
  '2026-02-30',
  '2026-13-01',
  '2026-10-01T24:00:00Z',
  '2026-10-01T25:00:00Z',
  '2026-10-01T10:00',
  '2026-10-01T10:00:00',
  '2026-10-01 10:00:00Z',
  '2026-10-01t10:00:00z',
  '2026-10-01T10:00:00.123456789Z',
  '2026-10-01T10:00:00+14:00',
  '2026-10-01T10:00:00+24:00',
  '1e20',
  '100000000000000000000',
  '-1',
  '0',
  '1700000000000',
  'now',
  'today',
  'Thu, 01 Jan 1970 00:00:00 GMT',
  'NaN',
  'null',
  '',
];

/**
 * Windows at the edges of what the API accepts: its first and last instants, a year at each
 * end, and periods longer than the 366 days the document allows (refused, but never a stall).
 */
export const extremeWindows: readonly (readonly [string, string])[] = [
  ['1970-01-01T00:00:00Z', '1971-01-01T00:00:00Z'],
  ['9998-01-01T00:00:00Z', '9998-12-31T23:59:59Z'],
  ['1970-01-01T00:00:00Z', '9998-12-31T23:59:59Z'],
  ['1970-01-01', '9998-12-31'],
  ['1970-01-01T00:00:00Z', '2026-11-01T00:00:00Z'],
  ['2026-11-01T00:00:00Z', '9998-12-31T23:59:59Z'],
  ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'],
  ['9998-12-31T23:59:59Z', '9998-12-31T23:59:59Z'],
  ['2000-01-01', '2100-01-01'],
  ['1970-01-01T00:00:00Z', '1970-01-02T00:00:00Z'],
];

/** Authorization header values that no credential check may trip over. */
export const hostileAuthorizations: readonly string[] = [
  'Bearer',
  'Bearer ',
  'Basic YWRtaW46YWRtaW4=',
  'Bearer ty_',
  'Bearer ty_garbage',
  'Bearer ghp_unknown',
  `Bearer gho_${'x'.repeat(36)}`,
  'Bearer ty_a ty_b',
  'Token ty_garbage',
  `Bearer ty_${'x'.repeat(4_000)}`,
  `Bearer ty_${'x'.repeat(20_000)}`,
  'Bearer ty_\u00ff\u00fe',
  'Bearer \u00e9',
];

export const hostileContentTypes: readonly string[] = [
  'application/JSON',
  'application/json; charset=latin1',
  'application/json;',
  'application/json, text/plain',
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x',
  'application/octet-stream',
  'application/xml',
  '*/*',
  '',
  ';',
  'application/json\u00ff',
];

export const hostileRequestIds: readonly string[] = [
  'has some spaces',
  'x'.repeat(129),
  'x'.repeat(10_000),
  '<script>',
  'a%0d%0aSet-Cookie:x',
  '\u00ff',
];

/** Bodies for the JSON endpoints: sizes past the 64 KB limit, bad escapes and encodings, odd JSON. */
export function hostileBodies(): { name: string; bytes: Buffer }[] {
  const json = (text: string) => Buffer.from(text, 'utf8');
  return [
    { name: 'reason of 100 KB', bytes: json(`{"reason":"${'a'.repeat(HUGE)}"}`) },
    { name: 'reason of 70 KB', bytes: json(`{"reason":"${'a'.repeat(70_000)}"}`) },
    { name: '1 MB of JSON', bytes: json(`[${'1,'.repeat(500_000)}1]`) },
    { name: 'NUL escape', bytes: json('{"reason":"a\\u0000b"}') },
    { name: 'lone surrogate escape', bytes: json('{"reason":"\\ud800"}') },
    {
      name: 'invalid UTF-8',
      bytes: Buffer.from([0x7b, 0x22, 0x72, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
    },
    { name: 'latin1 é', bytes: Buffer.from('{"reason":"é"}', 'latin1') },
    { name: 'BOM', bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json('{"reason":"a"}')]) },
    { name: 'raw NUL', bytes: json('{"reason":"a\u0000"}') },
    { name: 'reason number', bytes: json('{"reason":1}') },
    { name: 'reason null', bytes: json('{"reason":null}') },
    { name: 'reason empty', bytes: json('{"reason":""}') },
    { name: 'reason of 256', bytes: json(`{"reason":"${'a'.repeat(256)}"}`) },
    { name: 'empty object', bytes: json('{}') },
    { name: 'array', bytes: json('[]') },
    { name: 'null', bytes: json('null') },
    { name: 'string', bytes: json('"reason"') },
    { name: 'empty', bytes: Buffer.alloc(0) },
    { name: 'truncated', bytes: json('{"reason":"a"') },
    { name: 'open brace', bytes: json('{') },
    { name: 'duplicate keys', bytes: json('{"reason":"a","reason":"b"}') },
    { name: 'extra key', bytes: json('{"reason":"a","extra":1}') },
    { name: '__proto__', bytes: json('{"__proto__":{"reason":"x"},"reason":"a"}') },
    { name: 'constructor', bytes: json('{"constructor":{"prototype":{"x":1}},"reason":"a"}') },
    { name: 'deep nesting', bytes: json(`${'['.repeat(5_000)}${']'.repeat(5_000)}`) },
    { name: 'trailing garbage', bytes: json('{"reason":"a"}garbage') },
    { name: 'form', bytes: json('reason=x') },
    { name: 'huge number', bytes: json('{"reason":1e309}') },
  ];
}

const unreserved = /[A-Za-z0-9\-._~]/;

/**
 * Percent-encodes text as UTF-8; a lone surrogate is encoded as its three WTF-8 bytes
 * (encodeURIComponent throws on it, but a client can still send those bytes).
 */
export function percentEncode(text: string): string {
  let out = '';
  for (const ch of text) {
    if (unreserved.test(ch)) {
      out += ch;
      continue;
    }
    const code = ch.codePointAt(0)!;
    const bytes =
      code >= 0xd800 && code <= 0xdfff
        ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        : [...Buffer.from(ch, 'utf8')];
    for (const b of bytes) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export function encodeValue(value: WireValue): string {
  return 'raw' in value ? value.raw : percentEncode(value.text);
}

/** A short, printable description of a value: long runs are folded (`'a'×100000`). */
export function describeText(text: string, max = 160): string {
  const folded = JSON.stringify(text).replace(/(.)\1{19,}/gu, (run, ch: string) => `${ch}«×${run.length}»`);
  return folded.length > max ? `${folded.slice(0, max)}…(${text.length} chars)` : folded;
}
