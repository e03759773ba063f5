import { request } from 'node:http';
import { connect } from 'node:net';

/** A probe's port: a number, or the name of one of the container's ports. */
function portOf(port: unknown, container: any): number | undefined {
  if (typeof port === 'number') return port;
  if (typeof port === 'string' && /^\d+$/.test(port)) return Number(port);
  return (container.ports ?? []).find((p: any) => p.name === port)?.containerPort;
}

/**
 * Runs one readiness probe against the pod's IP: tcpSocket (a connection opens) or httpGet (an
 * answer 200–399). An exec probe is not run by the fake and counts as passing.
 */
export function probeOnce(probe: any, address: string, container: any): Promise<boolean> {
  const timeoutMs = Math.min((probe.timeoutSeconds ?? 1) * 1000, 1000);
  if (probe.tcpSocket) {
    const port = portOf(probe.tcpSocket.port, container);
    if (port === undefined) return Promise.resolve(false);
    return new Promise((resolve) => {
      const socket = connect({ host: address, port, timeout: timeoutMs });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });
  }
  if (probe.httpGet) {
    const port = portOf(probe.httpGet.port, container);
    if (port === undefined) return Promise.resolve(false);
    return new Promise((resolve) => {
      const headers = Object.fromEntries((probe.httpGet.httpHeaders ?? []).map((h: any) => [h.name, h.value]));
      const call = request({ host: address, port, path: probe.httpGet.path ?? '/', headers, timeout: timeoutMs }, (answer) => {
        answer.resume();
        resolve((answer.statusCode ?? 0) >= 200 && (answer.statusCode ?? 0) < 400);
      });
      call.once('error', () => resolve(false));
      call.once('timeout', () => call.destroy());
      call.end();
    });
  }
  return Promise.resolve(true);
}
