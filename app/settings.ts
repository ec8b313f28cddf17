import { z } from 'zod';

/** Configuration from the environment, validated once at start-up. */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z.string().min(1).optional(),
  TRAINYARD_DATA_DIR: z.string().min(1).default('./.trainyard/db'),
  TRAINYARD_PUBLIC_URL: z.url().optional(),
  /** Proxies whose X-Forwarded-* headers are believed: `true` (any), or addresses/CIDRs, comma-separated. */
  TRAINYARD_TRUST_PROXY: z
    .string()
    .transform((v, ctx): boolean | string[] => {
      const text = v.trim();
      if (text === 'true' || text === 'false') return text === 'true';
      const list = text.split(',').map((p) => p.trim());
      if (list.every((p) => /^[0-9a-f:.]+(\/\d{1,3})?$/i.test(p))) return list;
      ctx.addIssue({ code: 'custom', message: 'true, false, or comma-separated addresses/CIDRs' });
      return z.NEVER;
    })
    .optional(),
  /** Days events and statistics are kept (app/store/retention.ts); 90 when unset. */
  TRAINYARD_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).optional(),
  /**
   * A port of its own for /metrics (and /healthz, /readyz): /metrics then leaves the API's port.
   * Without it, /metrics is on the API's port (docs/operations.md, "Who may read /metrics").
   */
  TRAINYARD_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Address of the metrics port; HOST when unset. */
  TRAINYARD_METRICS_HOST: z.string().min(1).optional(),
  /** When set, /metrics asks for `Authorization: Bearer <this>`, wherever it is served. */
  TRAINYARD_METRICS_TOKEN: z
    .string()
    .min(16, 'at least 16 characters (a random secret: openssl rand -hex 32)')
    .regex(/^\S+$/, 'no spaces')
    .optional(),
  GITHUB_API_URL: z.url().default('https://api.github.com'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `json` or `pretty`; when unset, pretty on a terminal and JSON otherwise (app/logging.ts). */
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  APP_ID: z.string().min(1).optional(),
  PRIVATE_KEY: z.string().min(1).optional(),
  PRIVATE_KEY_PATH: z.string().min(1).optional(),
  WEBHOOK_SECRET: z.string().min(1).optional(),
  /** The App's slug (`@<slug> queue`); asked from GitHub when unset. */
  APP_SLUG: z
    .string()
    .regex(/^[a-z0-9-]+$/, 'a GitHub App slug: lowercase letters, digits and dashes')
    .optional(),
  /**
   * Sandbox mode only: how many times faster than a real repository the demo runs, its durations
   * (CI runs, gaps between pull requests, the queue's waits) that many times shorter; its clock
   * is the wall clock (decision 0030). Fixed when the sandbox is created.
   */
  SANDBOX_TIME_SCALE: z.coerce.number().positive().max(10_000).default(60),
});

export type Settings = z.output<typeof envSchema>;

export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const parsed = envSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration in the environment:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

export function hasGithubCredentials(s: Settings): boolean {
  return Boolean(s.APP_ID && (s.PRIVATE_KEY || s.PRIVATE_KEY_PATH) && s.WEBHOOK_SECRET);
}
