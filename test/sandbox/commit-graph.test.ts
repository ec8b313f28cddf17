import { describe, expect, it } from 'vitest';
import { blobSha, CommitGraph, type FileChanges } from '../../app/sandbox/commit-graph.ts';

const person = { name: 'alice', email: 'alice@example.com', date: '2026-11-02T09:00:00Z' };

/** A little history: a root, then commits on named lines of work. */
function history() {
  const graph = new CommitGraph();
  const commit = (label: string, parents: string[], changes: FileChanges) => {
    const parentTree = graph.get(parents[0] ?? '')?.tree ?? new Map();
    return graph.create({
      label,
      parents,
      tree: graph.applyChanges(parentTree, changes),
      message: label,
      author: person,
    });
  };
  const root = commit('main-1', [], { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
  return { graph, commit, root };
}

describe('commit graph', () => {
  it('names files by git blob ids and commits by 40 hex digits derived from their content', () => {
    expect(blobSha('hello\n')).toBe('ce013625030ba8dba906f756967f9e9ca394464a'); // `git hash-object`
    const one = history();
    const two = history();
    expect(one.root.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(two.root.sha).toBe(one.root.sha);
    expect(one.root.label).toBe('main-1');
  });

  it('finds the merge base of two lines of work and the commits one adds over the other', () => {
    const { graph, commit, root } = history();
    const main2 = commit('main-2', [root.sha], { 'a.txt': 'A\n' });
    const pr1 = commit('pr-1-v1', [root.sha], { 'b.txt': 'B\n' });
    const pr1v2 = commit('pr-1-v2', [pr1.sha], { 'd.txt': 'd\n' });
    expect(graph.mergeBase(main2.sha, pr1v2.sha)).toBe(root.sha);
    expect(graph.mergeBase(pr1.sha, pr1v2.sha)).toBe(pr1.sha);
    expect(graph.commitsBetween(main2.sha, pr1v2.sha).map((c) => c.label)).toEqual(['pr-1-v1', 'pr-1-v2']);
    expect(graph.isAncestor(root.sha, pr1v2.sha)).toBe(true);
    expect(graph.isAncestor(main2.sha, pr1v2.sha)).toBe(false);
  });

  it('after a merge, the merge base moves to the merged commit (criss-cross free history)', () => {
    const { graph, commit, root } = history();
    const main2 = commit('main-2', [root.sha], { 'a.txt': 'A\n' });
    const pr = commit('pr-1', [root.sha], { 'b.txt': 'B\n' });
    const merged = graph.mergeCommits(main2.sha, pr.sha);
    if (merged.kind !== 'merged') throw new Error('expected a merge');
    const merge = graph.create({
      label: 'merge-pr-1',
      parents: [main2.sha, pr.sha],
      tree: merged.tree,
      message: 'm',
      author: person,
    });
    const pr2 = commit('pr-1-v2', [pr.sha], { 'b.txt': 'BB\n' });
    expect(graph.mergeBase(merge.sha, pr2.sha)).toBe(pr.sha);
  });

  it('combines changes to different files, and identical changes to the same file', () => {
    const { graph, commit, root } = history();
    const ours = commit('ours', [root.sha], { 'a.txt': 'A\n', 'c.txt': null, 'same.txt': 'x\n' });
    const theirs = commit('theirs', [root.sha], { 'b.txt': 'B\n', 'new.txt': 'n\n', 'same.txt': 'x\n' });
    const merged = graph.mergeCommits(ours.sha, theirs.sha);
    expect(merged.kind).toBe('merged');
    if (merged.kind !== 'merged') return;
    const text = Object.fromEntries([...merged.tree].map(([path, blob]) => [path, graph.blob(blob)]));
    expect(text).toEqual({ 'a.txt': 'A\n', 'b.txt': 'B\n', 'new.txt': 'n\n', 'same.txt': 'x\n' });
  });

  it('conflicts when both sides changed the same file differently, or one changed what the other deleted', () => {
    const { graph, commit, root } = history();
    const ours = commit('ours', [root.sha], { 'a.txt': 'ours\n', 'b.txt': null });
    const theirs = commit('theirs', [root.sha], {
      'a.txt': 'theirs\n',
      'b.txt': 'changed\n',
      'c.txt': 'C\n',
    });
    expect(graph.mergeCommits(ours.sha, theirs.sha)).toEqual({ kind: 'conflict', paths: ['a.txt', 'b.txt'] });
  });

  it('compares trees file by file', () => {
    const { graph, commit, root } = history();
    const next = commit('next', [root.sha], { 'a.txt': 'A\n', 'b.txt': null, 'z.txt': 'z\n' });
    expect(graph.diff(root.tree, next.tree).map((c) => `${c.status} ${c.path}`)).toEqual([
      'modified a.txt',
      'removed b.txt',
      'added z.txt',
    ]);
  });

  it('keeps labels unique', () => {
    const { graph, commit, root } = history();
    const a = commit('main-2', [root.sha], { 'a.txt': '1\n' });
    const b = commit('main-2', [root.sha], { 'a.txt': '2\n' });
    expect([a.label, b.label]).toEqual(['main-2', 'main-2-2']);
    expect(graph.resolve('main-2-2')?.sha).toBe(b.sha);
  });
});
