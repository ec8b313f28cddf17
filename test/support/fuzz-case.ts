import fc from 'fast-check';
import type { WireRequest } from './fuzz-http.ts';
import type { FuzzOperation } from './fuzz-openapi.ts';
import type { FuzzFixtures } from './fuzz-seed.ts';
import type { WireValue } from './fuzz-values.ts';

/** What the generator draws from: the document's operations and the seeded store's facts. */
export interface FuzzContext {
  operations: FuzzOperation[];
  fixtures: FuzzFixtures;
  /** Real `/logs` links (path and query) taken from Link headers. */
  links: string[];
  /** Cursors of another repository's log: well-formed, but not for this one. */
  foreignCursors: string[];
}

/** One generated request and what the fuzzer expects of its answer. */
export interface FuzzCase {
  wire: WireRequest;
  /** The document's operation it aims at (`malformed HTTP` for broken framing). */
  operation: string;
  /**
   * Every part valid per the document, from a credential allowed to do it: the answer must be a
   * success, or 404 (unknown repository, no pause) or 409 (retry), never a refusal.
   */
  valid: boolean;
  /** What was made hostile, for the report. */
  hostile: string[];
  /** The only statuses this request may get, when the generator knows them. */
  expected?: readonly number[];
  /** Closing the connection without an answer is a fair refusal of this request. */
  mayClose?: boolean;
}

/** A drawn part of a request; `hostile` names what is wrong with it (absent: valid). */
export interface Part<T> {
  value: T;
  hostile?: string | undefined;
}

export const ok = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<Part<T>> => arb.map((value) => ({ value }));
export const bad = <T>(label: string, arb: fc.Arbitrary<T>, show: (v: T) => string = String) =>
  arb.map((value): Part<T> => ({ value, hostile: `${label}: ${show(value)}`.slice(0, 120) }));
/** Mostly valid, sometimes hostile: most requests then reach the handlers with one thing wrong. */
export const mostly = <T>(valid: fc.Arbitrary<Part<T>>, hostile: fc.Arbitrary<Part<T>>, validWeight = 4) =>
  fc.oneof({ weight: validWeight, arbitrary: valid }, { weight: 1, arbitrary: hostile });

export const text = (value: string): WireValue => ({ text: value });
export const shortText = (v: WireValue) =>
  ('raw' in v ? `raw ${v.raw}` : JSON.stringify(v.text)).slice(0, 80);
