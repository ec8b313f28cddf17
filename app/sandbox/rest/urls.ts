import type { Account, Repository } from '../entities.ts';

/**
 * Where the sandbox answers: `api` plays https://api.github.com and `web` plays
 * https://github.com in every URL field of a response or payload.
 */
export interface SandboxUrls {
  api: string;
  web: string;
}

export const repoApiUrl = (urls: SandboxUrls, repo: Repository) =>
  `${urls.api}/repos/${repo.owner.login}/${repo.name}`;

export const repoWebUrl = (urls: SandboxUrls, repo: Repository) =>
  `${urls.web}/${repo.owner.login}/${repo.name}`;

export const fullName = (repo: Repository) => `${repo.owner.login}/${repo.name}`;

export const accountApiUrl = (urls: SandboxUrls, account: Account) =>
  `${urls.api}/${account.type === 'Organization' ? 'orgs' : 'users'}/${account.login}`;

/** GitHub's legacy global node id: base64 of `<length of type>:<Type><id>` (`MDQ6VXNlcjE=`). */
export function nodeId(type: string, id: number | string): string {
  return Buffer.from(`${String(type.length).padStart(2, '0')}:${type}${id}`).toString('base64');
}

/** Timestamps the way GitHub writes them: ISO 8601 in UTC without milliseconds. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export const isoOrNull = (ms: number | null) => (ms === null ? null : isoTime(ms));
