import { generateKeyPairSync } from 'node:crypto';
import { ProbotOctokit } from 'probot';
import { VirtualClock } from '../../app/sandbox/clock.ts';
import type { Repository } from '../../app/sandbox/entities.ts';
import { SandboxGithub } from '../../app/sandbox/model.ts';
import { type SandboxServer, startSandboxServer } from '../../app/sandbox/server.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';

export const webhookSecret = 'sandbox-test-secret';

/** One RSA key for all tests of a file: the sandbox checks the JWT's shape, not its signature. */
let privateKey: string | undefined;
function appPrivateKey(): string {
  privateKey ??= generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;
  return privateKey;
}

export interface SandboxHarness {
  clock: VirtualClock;
  github: SandboxGithub;
  server: SandboxServer;
  receiver: WebhookReceiver;
  /** An octokit authenticated as the app's installation, the way `probot.auth(id)` builds it. */
  installationOctokit(
    installationId: number,
    options?: { retry?: boolean },
  ): InstanceType<typeof ProbotOctokit>;
  /** An octokit with a personal token of `login`. */
  userOctokit(login: string): InstanceType<typeof ProbotOctokit>;
  /** A repository `acme/<name>` with the app installed; returns it with its installation's octokit. */
  installedRepository(
    name: string,
    files?: Record<string, string>,
  ): {
    repo: Repository;
    octokit: InstanceType<typeof ProbotOctokit>;
  };
  close(): Promise<void>;
}

/**
 * The sandbox code host on loopback with a virtual clock, a webhook receiver that verifies
 * signatures, and octokits that talk to it over HTTP. Delivery ids are numbered so that
 * assertions are stable.
 */
export async function startSandboxHarness(
  options: { retryDelaysMs?: number[] } = {},
): Promise<SandboxHarness> {
  const clock = new VirtualClock();
  const github = new SandboxGithub({ clock });
  const receiver = await startWebhookReceiver(webhookSecret);
  let delivery = 0;
  const server = await startSandboxServer({
    github,
    webhook: { url: receiver.url, secret: webhookSecret },
    deliveryIds: () => `00000000-0000-4000-8000-${String(++delivery).padStart(12, '0')}`,
    retryDelaysMs: options.retryDelaysMs ?? [5, 10],
  });
  const installationOctokit: SandboxHarness['installationOctokit'] = (installationId, octokitOptions = {}) =>
    new ProbotOctokit({
      baseUrl: server.url,
      auth: { appId: github.app.id, privateKey: appPrivateKey(), installationId },
      // Retries wait 1 ms, not octokit's seconds: tests of retried faults stay fast.
      retry: { enabled: octokitOptions.retry ?? false, retryAfterBaseValue: 1 },
      throttle: { enabled: false },
    });
  return {
    clock,
    github,
    server,
    receiver,
    installationOctokit,
    userOctokit(login) {
      const token = github.access.issueUserToken(github.account(login));
      return new ProbotOctokit({
        baseUrl: server.url,
        auth: { token },
        retry: { enabled: false },
        throttle: { enabled: false },
      });
    },
    installedRepository(name, files) {
      const repo = github.createRepository({ owner: 'acme', name, files });
      const installation = github.install([repo]);
      return { repo, octokit: installationOctokit(installation.id) };
    },
    async close() {
      await server.close();
      await receiver.close();
    },
  };
}
