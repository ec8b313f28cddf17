import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy on loopback that can be cut (the database "gone") and put back on the same port. */
export interface TcpProxy {
  port: number;
  /** Stops listening and drops every connection: clients get resets, then refusals. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = createConnection(target);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream);
        upstream.pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as { port: number }).port;
        server = s;
        resolve();
      });
    });
  const cut = async () => {
    const s = server;
    server = null;
    for (const socket of sockets) socket.destroy();
    if (s !== null) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return { port, cut, resume: listen, close: cut };
}
