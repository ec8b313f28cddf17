/**
 * Ids come in from the caller: the shell passes a seeded source so that replaying the same inputs
 * gives byte-identical outputs. Nothing here reads the clock or a random device.
 */
export interface IdSource {
  /** A new RFC 4122 version-4 uuid. */
  uuid(): string;
}

/** A deterministic uuid stream from a seed (SplitMix32): for the shell, the simulator and replays. */
export function createSeededIdSource(seed: number): IdSource {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  return {
    uuid: () => {
      const hex = [next(), next(), next(), next()].map((n) => n.toString(16).padStart(8, '0')).join('');
      const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
    },
  };
}

/** The short id of a batch in its test branch name. */
export function computeShortId(uuid: string): string {
  return uuid.replaceAll('-', '').slice(0, 8);
}

const TEST_BRANCH_PREFIX = 'trainyard/merge-queue/';

export function computeTestBranch(batchId: string): string {
  return `${TEST_BRANCH_PREFIX}${computeShortId(batchId)}`;
}

/**
 * Exactly a name computeTestBranch makes: the prefix and a batch's eight hex digits. Stricter
 * than isTestBranch, for what may be deleted or force-moved as the app's own.
 */
export function isTestBranchName(branch: string): boolean {
  return (
    branch.startsWith(TEST_BRANCH_PREFIX) && /^[0-9a-f]{8}$/.test(branch.slice(TEST_BRANCH_PREFIX.length))
  );
}

/** A branch the engine made for a batch (the shell ignores its pushes and draft pull requests). */
export function isTestBranch(branch: string): boolean {
  return branch.startsWith(TEST_BRANCH_PREFIX);
}
