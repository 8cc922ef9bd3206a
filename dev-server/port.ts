import { createConnection } from 'node:net';

/** Whether something accepts TCP connections at `host:port`. */
export function isListening(address: string, timeoutMs = 500): Promise<boolean> {
  const colon = address.lastIndexOf(':');
  const [host, port] = [address.slice(0, colon), Number(address.slice(colon + 1))];
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
