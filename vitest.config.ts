import { defineConfig } from 'vitest/config';

const outside = ['test/bench/**', 'node_modules/**'];
const sharedIntegration = [
  'test/github/**/*.int.test.ts',
  'test/store/**/*.int.test.ts',
  'test/api/**/*.int.test.ts',
];

export default defineConfig({
  test: {
    exclude: outside,
    // Flow tests run many simulated minutes through real HTTP and a database; 2 shared cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests open databases; two cores do not gain from more workers. The projects
    // share the two workers.
    maxWorkers: 2,
    // Every exchange with GitHub (nock or the sandbox) is checked against GitHub's descriptions.
    setupFiles: ['test/support/github-contract/contract-setup.ts'],
    projects: [
      {
        // Child processes, browsers, the sandbox code host (its crash tests), whole systems:
        // each file in a fresh worker, so nothing one leaves behind (processes, open handles,
        // timers) meets another.
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.int.test.ts'],
          exclude: [...outside, ...sharedIntegration],
        },
      },
      {
        // The GitHub shell, the store and the API in process: each file closes the servers and
        // databases it opens and clears nock in its hooks (test/support), so these too run one
        // after the other in a worker, without loading the app's modules again for each.
        extends: true,
        test: { name: 'integration-shared', include: sharedIntegration, isolate: false },
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
