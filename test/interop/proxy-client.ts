// A plain TCP client of a router's `binding: proxy` listener: the router asks the controller for a circuit when the
// connection is accepted (CircuitRequest), and joins the connection to it, or closes it when the controller refuses.
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { connect } from 'node:net';

export interface ProxyExchange {
  /** Everything read back until `expected` bytes came or the router closed the connection. */
  output: Buffer;
  /** From connect to the first byte back (undefined: none came). */
  firstByteMs: number | undefined;
  ms: number;
  /** The router closed the connection (a refused circuit, or the far end closed). */
  closedByPeer: boolean;
}

/** Connects to 127.0.0.1:`port`, writes `input`, and reads until as many bytes came back, the peer closed, or timeout. */
export function throughProxy(port: number, input: Buffer, timeoutMs = 30_000): Promise<ProxyExchange> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    let received = 0;
    let firstByteMs: number | undefined;
    let closedByPeer = false;
    const socket = connect({ host: '127.0.0.1', port });
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ output: Buffer.concat(chunks), firstByteMs, ms: performance.now() - started, closedByPeer });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.once('connect', () => socket.write(input));
    socket.on('data', (chunk: Buffer) => {
      firstByteMs ??= performance.now() - started;
      chunks.push(chunk);
      received += chunk.length;
      if (received >= input.length) finish();
    });
    socket.once('end', () => {
      closedByPeer = true;
      finish();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      // A reset is the router closing a connection it could not join to a circuit.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') {
        closedByPeer = true;
        finish();
      } else {
        clearTimeout(timer);
        reject(error);
      }
    });
  });
}

/**
 * Sends one datagram to a `proxy_udp` listener on 127.0.0.1:`port` and waits for one back: the router's session for
 * this source is the circuit its CircuitRequest got. Resolves with the datagram and the time it took, or undefined.
 */
export async function datagramThroughProxy(
  port: number,
  input: Buffer,
  timeoutMs = 10_000,
): Promise<{ output: Buffer; ms: number } | undefined> {
  const socket = createSocket('udp4');
  const started = performance.now();
  try {
    const reply = once(socket, 'message', { signal: AbortSignal.timeout(timeoutMs) });
    socket.send(input, port, '127.0.0.1');
    const [output] = (await reply) as [Buffer];
    return { output, ms: performance.now() - started };
  } catch (error) {
    if (error instanceof Error && error.name === 'AbortError') return undefined;
    throw error;
  } finally {
    socket.close();
  }
}
