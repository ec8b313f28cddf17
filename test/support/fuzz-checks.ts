import fc from 'fast-check';
import type { FuzzCase } from './fuzz-case.ts';
import type { WireAnswer, WireRequest } from './fuzz-http.ts';
import { describeText } from './fuzz-values.ts';

/** What the API (docs/api.md, "Errors") promises of every answer, whatever was sent. */
export type ProblemKind =
  | 'no answer in time'
  | 'no answer'
  | '5xx'
  | '4xx without a JSON detail'
  | '4xx without X-Request-Id'
  | 'answer without X-Request-Id'
  | 'stack trace or SQL in an error body'
  | 'valid request refused'
  | 'unexpected status';

export interface Problem {
  kind: ProblemKind;
  message: string;
}

/** Internals that must never reach a client: stack frames, module paths, SQL and its errors. */
const leaks: readonly RegExp[] = [
  /\bat [^\n]*\.[cm]?[jt]s:\d+/,
  /\b\w*Error: /,
  /node_modules/,
  /\bSELECT\b[^\n]*\bFROM\b/,
  /\bINSERT INTO\b/,
  /\bsyntax error\b/i,
  /\brelation "[^"]*" does not exist/i,
  /\bviolates [\w ]*constraint\b/i,
];

/** Refusals a valid request from an allowed caller may still get (README: unknown repository or no pause, retry). */
const allowedRefusals = new Set([404, 409]);

function hasDetail(body: Buffer): boolean {
  try {
    const json = JSON.parse(body.toString('utf8')) as { detail?: unknown };
    const d = json?.detail;
    return (typeof d === 'string' && d.length > 0) || (Array.isArray(d) && d.length > 0);
  } catch {
    return false;
  }
}

/** The API's body limit (app/api/server.ts): larger bodies may be refused by closing. */
const API_BODY_LIMIT = 64 * 1024;

/** The problems of one answer (none: it keeps the contract). */
export function checkAnswer(c: FuzzCase, answer: WireAnswer): Problem[] {
  if (answer.kind === 'timeout')
    return [{ kind: 'no answer in time', message: `nothing within ${Math.round(answer.ms)} ms` }];
  if (answer.kind === 'no-answer' && c.mayClose) return [];
  // A server that answers before reading a body past its limit closes the connection; the
  // client's next write then meets a reset and its kernel drops the answer (TCP, not HTTP).
  if (
    answer.kind === 'no-answer' &&
    (c.wire.body?.length ?? 0) > API_BODY_LIMIT &&
    /^(EPIPE|ECONNRESET)$/.test(answer.error)
  ) {
    return [];
  }
  if (answer.kind === 'no-answer')
    return [{ kind: 'no answer', message: `connection ended without an answer (${answer.error})` }];
  const problems: Problem[] = [];
  const { status, headers, body } = answer;
  const text = body.toString('utf8');
  const head = c.wire.method === 'HEAD';
  const requestId = headers['x-request-id']?.[0];
  if (status >= 500) problems.push({ kind: '5xx', message: `${status} ${describeText(text, 200)}` });
  if (status >= 400 && status < 500) {
    if (!head && !hasDetail(body)) {
      problems.push({ kind: '4xx without a JSON detail', message: `${status} ${describeText(text, 200)}` });
    }
    if (!requestId) problems.push({ kind: '4xx without X-Request-Id', message: `${status}` });
  } else if (!requestId) {
    problems.push({ kind: 'answer without X-Request-Id', message: `${status}` });
  }
  // Successes are the API's data: the log keeps CI output, which may quote anything.
  const leak = status >= 300 ? leaks.find((pattern) => pattern.test(text)) : undefined;
  if (leak)
    problems.push({
      kind: 'stack trace or SQL in an error body',
      message: `${status} matches ${leak}: ${describeText(text, 300)}`,
    });
  if (c.valid && status >= 400 && status < 500 && !allowedRefusals.has(status)) {
    problems.push({ kind: 'valid request refused', message: `${status} ${describeText(text, 200)}` });
  }
  if (c.expected && !c.expected.includes(status)) {
    const expected = c.expected.join(' or ');
    problems.push({
      kind: 'unexpected status',
      message: `${status}, expected ${expected}: ${describeText(text, 200)}`,
    });
  }
  return problems;
}

/** A request as a reader can replay it: method, target, headers and body, long runs folded. */
export function describeRequest(wire: WireRequest): string {
  if (wire.rawHead) {
    const raw = describeText(wire.rawHead.toString('latin1'), 400);
    return `raw bytes (latin1) ${raw}${wire.body ? ` + body ${describeText(wire.body.toString('latin1'), 200)}` : ''}`;
  }
  const parts = [`${wire.method} ${describeText(wire.target, 300)}`];
  if (wire.host !== undefined)
    parts.push(`Host: ${wire.host === null ? '(none)' : describeText(wire.host, 60)}`);
  for (const [name, value] of wire.headers) parts.push(`${name}: ${describeText(value, 100)}`);
  if (wire.body)
    parts.push(`body (${wire.body.length} bytes): ${describeText(wire.body.toString('latin1'), 200)}`);
  return parts.join('\n    ');
}

/** Lets fast-check print a case (its counterexamples) the way the report does, long values folded. */
export function printable(c: FuzzCase): FuzzCase {
  return Object.assign(c, { [fc.toStringMethod]: () => describeCase(c) });
}

export function describeCase(c: FuzzCase): string {
  const why =
    c.hostile.length > 0
      ? c.hostile.join('; ')
      : c.valid
        ? 'valid request'
        : 'valid parts, insufficient credential';
  return `${c.operation} [${why}]\n    ${describeRequest(c.wire)}`;
}
