import { defineConfig } from 'vitest/config';

const outside = ['test/bench/**', 'node_modules/**'];

export default defineConfig({
  test: {
    exclude: outside,
    // Flow tests run many simulated minutes through real HTTP and a database; 2 shared cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests open databases; two cores do not gain from more workers. Both projects
    // share the two workers.
    maxWorkers: 2,
    // Every exchange with GitHub (nock or the sandbox) is checked against GitHub's descriptions.
    setupFiles: ['test/support/github-contract/contract-setup.ts'],
    projects: [
      {
        // Servers, databases, child processes, the sandbox, nock flows: each file in a fresh
        // worker, so nothing one leaves behind (open handles, listeners, timers) meets another.
        extends: true,
        test: { name: 'integration', include: ['test/**/*.int.test.ts'] },
      },
      {
        // Engine, configuration, schemas, simulator, texts, GitHub translation against nock:
        // modules without state of their own across files (app/queue/memo.ts keys every cache
        // on immutable objects), so one worker runs file after file without loading the same
        // modules again. Loading them was most of these files' time.
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'extension/test/unit/**/*.test.ts'],
          exclude: [...outside, 'test/**/*.int.test.ts'],
          isolate: false,
        },
      },
    ],
  },
});
