import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ThrowawayTls {
  /** The CA certificate (PEM) a client must trust. */
  ca: string;
  /** The server's certificate (PEM, for localhost, 127.0.0.1 and the host's own IPv4 addresses) and its private key. */
  cert: string;
  key: string;
}

let cached: ThrowawayTls | undefined;

/**
 * A throwaway CA and a server certificate it signed, made with the openssl CLI at test time and
 * valid for one day. Nothing is kept on disk; one pair is shared per test process.
 */
export function throwawayTls(): ThrowawayTls {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'occ-tls-'));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    openssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '1',
      '-subj',
      '/CN=OCC throwaway test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
    writeFileSync(
      join(dir, 'server.ext'),
      `subjectAltName=${subjectAltNames()}\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n`,
    );
    openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-extfile', 'server.ext', '-out', 'server.pem');
    cached = {
      ca: readFileSync(join(dir, 'ca.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'server.pem'), 'utf8'),
      key: readFileSync(join(dir, 'server.key'), 'utf8'),
    };
    return cached;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** localhost, loopback and every IPv4 address of this host: a container reaches a relayed server on the host's address. */
function subjectAltNames(): string {
  const addresses = Object.values(networkInterfaces())
    .flatMap((found) => found ?? [])
    .filter((a) => a.family === 'IPv4')
    .map((a) => a.address);
  return ['DNS:localhost', ...new Set(['127.0.0.1', ...addresses])].map((name) => (name.startsWith('DNS:') ? name : `IP:${name}`)).join(',');
}
