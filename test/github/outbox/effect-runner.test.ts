import { describe, expect, it } from 'vitest';
import { executeEffect, isGithubEffect } from '../../../app/github/outbox/effect-runner.ts';
import type { Effect } from '../../../app/queue/effects.ts';
import { mergePr, postComment } from '../../support/effect-builders.ts';
import { useGithubNock } from '../../support/nock/github-nock.ts';

const github = useGithubNock();

describe('executeEffect', () => {
  it('leaves wake-ups to the scheduler', () => {
    const wakeUp: Effect = { type: 'schedule_wake_up', key: 'schedule_wake_up', at: '2026-11-20T10:00:00Z' };

    expect(isGithubEffect(wakeUp)).toBe(false);
    expect(isGithubEffect(mergePr())).toBe(true);
    expect(isGithubEffect(postComment())).toBe(true);
  });

  it('rejects an effect kind it does not know instead of ignoring it', async () => {
    const unknown = { type: 'launch_rocket', key: 'x' } as unknown as Parameters<typeof executeEffect>[0];

    await expect(executeEffect(unknown, github.client())).rejects.toThrow('no executor for effect');
    expect(github.isDone()).toBe(true);
  });
});
