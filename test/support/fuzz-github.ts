import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A GitHub REST stand-in on loopback for the fuzz server, so GitHub tokens are checked without
 * leaving the machine: two known tokens (read, write on every repository), every other one is
 * refused as GitHub refuses an unknown token (401).
 */
export const FAKE_GITHUB_TOKENS = {
  reader: 'ghp_fuzzreader000000000000000000000000',
  writer: 'ghp_fuzzwriter000000000000000000000000',
} as const;

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  const role =
    token === FAKE_GITHUB_TOKENS.writer ? 'write' : token === FAKE_GITHUB_TOKENS.reader ? 'read' : null;
  const path = (req.url ?? '/').split('?')[0]!.replace(/^\/api\/v3/, '');
  if (role === null) answer(res, 401, { message: 'Bad credentials' });
  else if (path === '/user') answer(res, 200, { id: role === 'write' ? 2 : 1, login: `fuzz-${role}` });
  else if (/^\/repos\/[^/]+\/[^/]+$/.test(path)) {
    answer(res, 200, { permissions: { pull: true, push: role === 'write' } });
  } else answer(res, 404, { message: 'Not Found' });
}

export async function startFakeGithub(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(handle);
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
