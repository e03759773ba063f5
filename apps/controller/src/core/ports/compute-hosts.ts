/**
 * A Namespace's SSH host (PUT /v1/namespaces/:ns/ssh-host, docs/compute-ssh.md "Hosts"): where
 * the ssh ComputeDriver runs the Namespace's Agents. Saved by an Installation administrator,
 * audited; the client key is an OCC Secret of the same Namespace.
 */
export interface NamespaceSshHost {
  /** `host`, `host:port` or `[v6]:port` (port 22 by default). */
  address: string;
  /** The POSIX account the runtimes run as. */
  user: string;
  /** The host key the host must present, pinned: its public key line or its `SHA256:` fingerprint. */
  hostKey: string;
  /** The client key (OpenSSH or PEM, no passphrase), the Secret's value: kept in memory only while a connection may need it, never logged. */
  privateKey: string;
}

/** What the ssh ComputeDriver reads at every host effect: the Namespace's saved host, null when it has none. */
export interface ComputeHostDirectory {
  sshHostOf(namespaceId: string): Promise<NamespaceSshHost | null>;
}
