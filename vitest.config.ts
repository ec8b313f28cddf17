import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'extension/test/unit/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    // Flow tests run many simulated minutes through real HTTP and a database; 2 shared cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests open databases; two cores do not gain from more workers.
    maxWorkers: 2,
    // Every exchange with GitHub (nock or the sandbox) is checked against GitHub's descriptions.
    setupFiles: ['test/support/github-contract/contract-setup.ts'],
  },
});
