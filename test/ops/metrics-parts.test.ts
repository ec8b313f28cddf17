import { describe, expect, it } from 'vitest';
import { BoundedLabels, OTHER_LABEL } from '../../app/ops/bounded-labels.ts';
import { decideMetricsAccess, isLoopback } from '../../app/ops/metrics-access.ts';
import { TestedUnitEnds } from '../../app/ops/tested-unit-outcome.ts';
import type { EventToAppend } from '../../app/store/events.ts';

describe('BoundedLabels', () => {
  it('keeps the first values and reports the later ones as _other, stably', () => {
    const labels = new BoundedLabels(2);
    expect(labels.labelOf('a/one')).toBe('a/one');
    expect(labels.labelOf('a/two')).toBe('a/two');
    expect(labels.labelOf('a/three')).toBe(OTHER_LABEL);
    expect(labels.labelOf('a/one')).toBe('a/one');
    expect(labels.labelOf('a/four')).toBe(OTHER_LABEL);
  });
});

describe('who may read /metrics', () => {
  const token = { kind: 'token', token: 'secret-token-0123456789' } as const;
  it('with a token: the exact bearer token only', () => {
    expect(
      decideMetricsAccess(token, {
        authorization: 'Bearer secret-token-0123456789',
        clientIp: '203.0.113.1',
      }),
    ).toEqual({ allowed: true });
    expect(
      decideMetricsAccess(token, { authorization: 'bearer secret-token-0123456789', clientIp: '127.0.0.1' })
        .allowed,
    ).toBe(true);
    for (const authorization of [
      undefined,
      '',
      'Bearer secret-token-012345678',
      'Basic c2VjcmV0',
      'secret-token-0123456789',
    ]) {
      const decision = decideMetricsAccess(token, { authorization, clientIp: '127.0.0.1' });
      expect(decision).toMatchObject({ allowed: false, status: 401 });
    }
  });
  it('by default: loopback clients only, IPv4, IPv6 and IPv4-mapped', () => {
    for (const ip of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'])
      expect(isLoopback(ip)).toBe(true);
    for (const ip of ['10.0.0.1', '203.0.113.9', '::ffff:10.0.0.1', 'fe80::1', '', 'localhost'])
      expect(isLoopback(ip)).toBe(false);
    expect(
      decideMetricsAccess({ kind: 'loopback' }, { authorization: undefined, clientIp: '10.1.2.3' }),
    ).toMatchObject({
      allowed: false,
      status: 403,
    });
  });
  it('on a port of its own without a token: anyone', () => {
    expect(
      decideMetricsAccess({ kind: 'open' }, { authorization: undefined, clientIp: '198.51.100.4' }).allowed,
    ).toBe(true);
  });
});

describe('batch outcomes from checks_end events', () => {
  const end = (unit: string | null, metadata: Record<string, unknown>): EventToAppend => ({
    type: 'action.queue.checks_end',
    receivedAt: new Date(0),
    trigger: 'test',
    pullRequest: 1,
    baseRef: 'main',
    metadata: {
      train_car_id: unit,
      aborted: false,
      abort_code: null,
      checks_conclusion: 'success',
      checks_timed_out: false,
      ...metadata,
    },
  });
  it('counts a batch once, though its pull requests end their checks in several steps', () => {
    const ends = new TestedUnitEnds();
    expect(ends.outcomesOf([end('b1', {}), end('b1', {})])).toEqual(['success']);
    expect(ends.outcomesOf([end('b1', {})])).toEqual([]);
    expect(ends.outcomesOf([end('b2', { checks_conclusion: 'failure' })])).toEqual(['failure']);
    expect(ends.outcomesOf([end('b3', { checks_timed_out: true, checks_conclusion: 'pending' })])).toEqual([
      'failure',
    ]);
    expect(
      ends.outcomesOf([
        end('b4', { aborted: true, abort_code: 'BATCH_AHEAD_FAILED', checks_conclusion: 'cancelled' }),
      ]),
    ).toEqual(['aborted']);
    // Failed checks stay a failure when the end is an abort for a retry.
    expect(
      ends.outcomesOf([
        end('b5', { aborted: true, abort_code: 'CHECKS_RETRIED', checks_conclusion: 'failure' }),
      ]),
    ).toEqual(['failure']);
    expect(ends.outcomesOf([end('b6', { checks_conclusion: 'cancelled' })])).toEqual(['other']);
  });
});
