// Checks that package.json's `engines.node` tells the truth: every installed package's own
// `engines.node` (as package-lock.json records it) accepts every Node version ours accepts, so
// `npm install` on a supported Node prints no EBADENGINE warning; and that each Node major the
// project supports (SUPPORTED_MAJORS, tested by .ci/run) is inside our range. Packages the
// lockfile lists for other platforms (not in node_modules here) are skipped, as npm skips them.
//
//   node scripts/check-engines.mjs
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

/** The Node majors .ci/run tests on; 20 is past its end of life (2026-04-30) but still accepted. */
const SUPPORTED_MAJORS = [20, 22, 24];

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ours = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines?.node;
if (!ours || !semver.validRange(ours)) {
  console.error(`package.json has no valid engines.node (${ours})`);
  process.exit(1);
}
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
const problems = [];
let checked = 0;
for (const [path, entry] of Object.entries(lock.packages ?? {})) {
  const theirs = entry.engines?.node;
  if (path === '' || !theirs || !existsSync(join(root, path))) continue;
  checked++;
  if (!semver.validRange(theirs)) problems.push(`${path}: engines.node "${theirs}" is not a range`);
  else if (!semver.subset(ours, theirs, { includePrerelease: false }))
    problems.push(`${path} (${entry.version}) needs Node ${theirs}, narrower than our ${ours}`);
}
for (const major of SUPPORTED_MAJORS) {
  if (!semver.intersects(ours, `${major}.x`)) problems.push(`engines.node "${ours}" excludes Node ${major}`);
}
if (problems.length > 0) {
  console.error(`engines.node "${ours}" does not tell the truth:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(
  `engines.node "${ours}": every installed package with an engines field (${checked}) accepts it; Node ${SUPPORTED_MAJORS.join(', ')} are inside it`,
);
