import net, { type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** `host:port` to connect to instead of the target. */
  address: string;
  /** The network goes away: open connections are dropped and new ones refused. */
  cut(): Promise<void>;
  /** The network comes back, on the same address. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real TCP forwarder in front of a server (here: Temporal's gRPC port), which a test can cut and
 * restore to play an outage between one client and the server while everything else stays up.
 */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const separator = target.lastIndexOf(':');
  const host = target.slice(0, separator);
  const port = Number(target.slice(separator + 1));
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let listenPort = 0;

  const forward = (client: Socket) => {
    const upstream = net.connect(port, host);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const socket of [client, upstream]) {
      socket.on('error', drop);
      socket.on('close', drop);
    }
    client.pipe(upstream);
    upstream.pipe(client);
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = net.createServer(forward);
      next.once('error', reject);
      next.listen(listenPort, '127.0.0.1', () => {
        listenPort = (next.address() as net.AddressInfo).port;
        server = next;
        resolve();
      });
    });

  const stop = () =>
    new Promise<void>((resolve) => {
      const current = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      if (!current) return resolve();
      current.close(() => resolve());
    });

  await listen();
  return {
    address: `127.0.0.1:${listenPort}`,
    cut: stop,
    restore: listen,
    close: stop,
  };
}
