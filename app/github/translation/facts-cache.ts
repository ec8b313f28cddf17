import type { RepositoryClient } from '../client/client.ts';

export interface FilesKey {
  number: number;
  headSha: string;
  /** The files are the diff against the base: retargeting the pull request changes them. */
  base: string;
}

/**
 * What is safe to remember between webhooks: a pull request's changed files at a given head
 * (and base) never change. Reviews, labels and checks change without the head moving, so this
 * cache has no place for them. Bounded: the least recently used entries go first.
 */
export class FactsCache {
  private readonly files = new Map<string, Promise<string[]>>();

  constructor(readonly maxEntries = 2_000) {}

  get size(): number {
    return this.files.size;
  }

  /** The changed files, from GitHub the first time; concurrent callers share one request. */
  fetchFiles(client: RepositoryClient, key: FilesKey): Promise<string[]> {
    // GitHub's owner and repository names are case-insensitive; branch names are not.
    const id = `${`${client.owner}/${client.repo}`.toLowerCase()}#${key.number}@${key.headSha}:${key.base}`;
    const known = this.files.get(id);
    if (known !== undefined) {
      // Map keeps insertion order: moving a hit to the end makes the first entry the oldest.
      this.files.delete(id);
      this.files.set(id, known);
      return known;
    }
    const fetched = client.listPullRequestFiles(key.number);
    this.files.set(id, fetched);
    // A failure is not a fact: the next caller asks again.
    fetched.catch(() => {
      if (this.files.get(id) === fetched) this.files.delete(id);
    });
    while (this.files.size > this.maxEntries) {
      const oldest = this.files.keys().next().value as string;
      this.files.delete(oldest);
    }
    return fetched;
  }
}
