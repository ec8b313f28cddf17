import fc from 'fast-check';
import type { FuzzCase } from './fuzz-case.ts';
import { printable } from './fuzz-checks.ts';
import type { FuzzFixtures } from './fuzz-seed.ts';

/*
 * Broken HTTP/1.1 framing: request lines, header syntax and lengths that Node's own parser
 * (llhttp) refuses before Fastify sees a request. The contract still applies to the answer.
 */

type Head = (target: string, auth: string, host: string) => string;

/** Frames the server may refuse by closing the connection without an answer: none. */
const mayClose = new Set<string>();

const CRLF = '\r\n';
const lines = (...l: string[]) => `${l.join(CRLF)}${CRLF}${CRLF}`;
const usual = (auth: string, host: string) => [
  `Host: ${host}`,
  `Authorization: Bearer ${auth}`,
  'Connection: close',
];

const heads: readonly [string, Head][] = [
  ['extra word in the request line', (t, a, h) => lines(`GET ${t} HTTP/1.1 extra`, ...usual(a, h))],
  ['two spaces after the method', (t, a, h) => lines(`GET  ${t} HTTP/1.1`, ...usual(a, h))],
  ['lower-case method', (t, a, h) => lines(`get ${t} HTTP/1.1`, ...usual(a, h))],
  ['unknown method', (t, a, h) => lines(`FOO ${t} HTTP/1.1`, ...usual(a, h))],
  ['NUL in the method', (t, a, h) => lines(`G\u0000T ${t} HTTP/1.1`, ...usual(a, h))],
  ['NUL in the target', (t, a, h) => lines(`GET ${t}\u0000x HTTP/1.1`, ...usual(a, h))],
  ['space in the target', (t, a, h) => lines(`GET ${t} x HTTP/1.1`, ...usual(a, h))],
  ['tab in the target', (t, a, h) => lines(`GET ${t}\tx HTTP/1.1`, ...usual(a, h))],
  ['raw bytes >= 0x80 in the target', (t, a, h) => lines(`GET ${t}\u00e9\u00ff HTTP/1.1`, ...usual(a, h))],
  ['HTTP/9.9', (t, a, h) => lines(`GET ${t} HTTP/9.9`, ...usual(a, h))],
  ['HTTP/0.9 request line', (t) => `GET ${t}${CRLF}${CRLF}`],
  ['HTTP/2 preface', () => `PRI * HTTP/2.0${CRLF}${CRLF}SM${CRLF}${CRLF}`],
  ['no method', (t, a, h) => lines(`${t} HTTP/1.1`, ...usual(a, h))],
  ['bare LF line ends', (t, a, h) => `${[`GET ${t} HTTP/1.1`, ...usual(a, h)].join('\n')}\n\n`],
  ['NUL in a header name', (t, a, h) => lines(`GET ${t} HTTP/1.1`, ...usual(a, h), 'X-A\u0000: b')],
  ['NUL in a header value', (t, a, h) => lines(`GET ${t} HTTP/1.1`, ...usual(a, h), 'X-A: b\u0000c')],
  [
    'NUL in the Authorization value',
    (t, a, h) =>
      lines(`GET ${t} HTTP/1.1`, `Host: ${h}`, `Authorization: Bearer ${a}\u0000`, 'Connection: close'),
  ],
  ['CR alone in a header value', (t, a, h) => lines(`GET ${t} HTTP/1.1`, ...usual(a, h), 'X-A: b\rc')],
  ['space in a header name', (t, a, h) => lines(`GET ${t} HTTP/1.1`, ...usual(a, h), 'X A: b')],
  ['empty header name', (t, a, h) => lines(`GET ${t} HTTP/1.1`, ...usual(a, h), ': b')],
  ['header line without a colon', (t, a, h) => lines(`GET ${t} HTTP/1.1`, ...usual(a, h), 'NoColon')],
  ['obsolete line folding', (t, a, h) => lines(`GET ${t} HTTP/1.1`, ...usual(a, h), 'X-A: b', ' c')],
  ['Content-Length: abc', (t, a, h) => lines(`GET ${t} HTTP/1.1`, ...usual(a, h), 'Content-Length: abc')],
  ['Content-Length: -1', (t, a, h) => lines(`GET ${t} HTTP/1.1`, ...usual(a, h), 'Content-Length: -1')],
  [
    'two Content-Lengths',
    (t, a, h) => lines(`PUT ${t} HTTP/1.1`, ...usual(a, h), 'Content-Length: 1', 'Content-Length: 2'),
  ],
  [
    'Content-Length with Transfer-Encoding',
    (t, a, h) =>
      lines(`PUT ${t} HTTP/1.1`, ...usual(a, h), 'Content-Length: 3', 'Transfer-Encoding: chunked'),
  ],
  [
    'Transfer-Encoding not ending in chunked',
    (t, a, h) => lines(`PUT ${t} HTTP/1.1`, ...usual(a, h), 'Transfer-Encoding: chunked, gzip'),
  ],
  [
    'invalid chunk size',
    (t, a, h) =>
      `${lines(`PUT ${t} HTTP/1.1`, ...usual(a, h), 'Transfer-Encoding: chunked', 'Content-Type: application/json')}zz${CRLF}{}${CRLF}0${CRLF}${CRLF}`,
  ],
  [
    'header of 20 KB',
    (t, a, h) => lines(`GET ${t} HTTP/1.1`, ...usual(a, h), `X-Pad: ${'a'.repeat(20_000)}`),
  ],
  ['target of 20 KB', (t, a, h) => lines(`GET ${t}?x=${'a'.repeat(20_000)} HTTP/1.1`, ...usual(a, h))],
  ['no Host header', (t, a) => lines(`GET ${t} HTTP/1.1`, `Authorization: Bearer ${a}`, 'Connection: close')],
  ['two Host headers', (t, a, h) => lines(`GET ${t} HTTP/1.1`, ...usual(a, h), 'Host: example.com')],
  [
    'Upgrade: websocket',
    (t, a, h) =>
      lines(
        `GET ${t} HTTP/1.1`,
        `Host: ${h}`,
        `Authorization: Bearer ${a}`,
        'Connection: Upgrade',
        'Upgrade: websocket',
      ),
  ],
  ['CONNECT', (_t, a, h) => lines(`CONNECT ${h} HTTP/1.1`, ...usual(a, h))],
  ['OPTIONS *', (_t, a, h) => lines('OPTIONS * HTTP/1.1', ...usual(a, h))],
];

/** Broken framing around an otherwise good read of the log. */
export function malformedCaseArb(fx: FuzzFixtures): fc.Arbitrary<FuzzCase> {
  const target = `/v1/repos/${fx.owner}/${fx.repository}/logs?per_page=5`;
  return fc.constantFrom(...heads).map(([name, head]) =>
    printable({
      // `{host}` becomes the server's address when sent (encodeRequest).
      wire: {
        method: '',
        target: '',
        headers: [],
        rawHead: Buffer.from(head(target, fx.tokens.reader, '{host}'), 'latin1'),
      },
      operation: 'malformed HTTP',
      valid: false,
      hostile: [`framing: ${name}`],
      ...(mayClose.has(name) ? { mayClose: true } : {}),
    }),
  );
}
