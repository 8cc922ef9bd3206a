import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { createServer, type Server } from 'node:tls';
import type { KeyPair } from './certificates.js';

export interface StrictListener {
  address: string;
  close(): Promise<void>;
}

/**
 * Mutual TLS the way Temporal's own server does it with `requireClientAuth`: a missing or untrusted
 * client certificate fails the handshake itself. Accepted connections are piped, decrypted, to the
 * upstream, which speaks gRPC over h2c with prior knowledge.
 */
export async function startStrictListener(upstream: string, server: KeyPair, ca: string): Promise<StrictListener> {
  const separator = upstream.lastIndexOf(':');
  const upstreamHost = upstream.slice(0, separator);
  const upstreamPort = Number(upstream.slice(separator + 1));
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const listener: Server = createServer(
    {
      requestCert: true,
      rejectUnauthorized: true,
      ca: readFileSync(ca),
      cert: readFileSync(server.cert),
      key: readFileSync(server.key),
      ALPNProtocols: ['h2'],
    },
    (client) => {
      const target = connect(upstreamPort, upstreamHost);
      track(client);
      track(target);
      const drop = () => {
        client.destroy();
        target.destroy();
      };
      client.on('error', drop).on('close', drop);
      target.on('error', drop).on('close', drop);
      client.pipe(target);
      target.pipe(client);
    },
  );
  // A refused handshake is the point of this listener, not an error of the test.
  listener.on('tlsClientError', () => {});
  listener.on('connection', track);

  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = listener.address() as { port: number };
  return {
    address: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        listener.close(() => resolve());
      }),
  };
}
