import { startSandbox } from '../../app/sandbox/start-sandbox.ts';

/*
 * A sandbox in a process of its own, for tests that kill it with SIGKILL (sandbox-crash):
 * `node --import tsx test/support/sandbox-process.ts <dataDir> <webhookUrl> <secret>`. It prints
 * one JSON line with what a client needs, then runs until killed.
 */
const [dataDir, webhookUrl, webhookSecret] = process.argv.slice(2);
if (!dataDir || !webhookUrl || !webhookSecret)
  throw new Error('usage: sandbox-process <dataDir> <webhookUrl> <secret>');
const sandbox = await startSandbox({
  dataDir,
  webhookUrl,
  webhookSecret,
  timeScale: 120,
  seed: 3,
  workload: { ratePerHour: 60, externalPushesPerHour: 6 },
  ci: { medianMs: 2 * 60_000 },
  retryDelaysMs: [20, 50, 100],
  clockLeaseMs: 200,
});
process.stdout.write(
  `${JSON.stringify({
    apiUrl: sandbox.apiUrl,
    appId: sandbox.appId,
    privateKey: sandbox.privateKey,
    installationId: sandbox.installationId,
  })}\n`,
);
