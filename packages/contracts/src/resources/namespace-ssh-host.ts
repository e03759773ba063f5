import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema, TimestampSchema } from '../common.ts';

/**
 * The body of PUT /namespaces/:ns/ssh-host (docs/compute-ssh.md, "Hosts"): where the `ssh`
 * ComputeDriver runs the Namespace's Agents. Only the shape is checked here; the installation's
 * ComputeDriver judges the values (a field it cannot use → 400 at that field).
 */
export const PutNamespaceSshHostBodySchema = Closed({
  /** `host`, `host:port` or `[v6]:port` (port 22 by default). */
  address: Type.String({ minLength: 1, maxLength: 260 }),
  /** The host's POSIX account the runtimes run as. */
  user: Type.String({ minLength: 1, maxLength: 32 }),
  /** The host key, pinned: its public key line (`ssh-ed25519 AAAA…`) or its `SHA256:` fingerprint. Public, not a secret. */
  hostKey: Type.String({ minLength: 1, maxLength: 16384 }),
  /** A Secret of the same Namespace holding OCC's client private key (OpenSSH or PEM, no passphrase). */
  privateKeySecretId: IdSchema('secret'),
});
export type PutNamespaceSshHostBody = Static<typeof PutNamespaceSshHostBodySchema>;

/** A Namespace's SSH host as saved: the key is named by its Secret, never shown. */
export const NamespaceSshHostSchema = Closed({
  namespaceId: IdSchema('namespace'),
  address: Type.String(),
  user: Type.String(),
  hostKey: Type.String(),
  privateKeySecretId: IdSchema('secret'),
  updatedAt: TimestampSchema,
});
/** Named apart from the controller's NamespaceSshHost port type, which carries the opened key. */
export type SavedNamespaceSshHost = Static<typeof NamespaceSshHostSchema>;
