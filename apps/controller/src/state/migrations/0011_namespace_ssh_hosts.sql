-- A Namespace's SSH host (PUT /namespaces/:ns/ssh-host, docs/compute-ssh.md "Hosts"): where the
-- ssh ComputeDriver runs the Namespace's Agents. At most one per Namespace, gone with it. The
-- client key is a Secret of the same Namespace (a composite foreign key, like every reference
-- between resources): a Secret in use as a host key cannot be deleted. The host key is public.
CREATE TABLE namespace_ssh_hosts (
  namespace_id text PRIMARY KEY,
  address text NOT NULL CHECK (length(address) BETWEEN 1 AND 260),
  ssh_user text NOT NULL CHECK (length(ssh_user) BETWEEN 1 AND 32),
  host_key text NOT NULL CHECK (length(host_key) BETWEEN 1 AND 16384),
  private_key_secret_id text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT namespace_ssh_hosts_namespace_id_fkey FOREIGN KEY (namespace_id) REFERENCES namespaces (id) ON DELETE CASCADE,
  CONSTRAINT namespace_ssh_hosts_private_key_secret_fkey FOREIGN KEY (namespace_id, private_key_secret_id) REFERENCES secrets (namespace_id, id)
);
-- The Secret delete's referrer check looks hosts up by their key Secret.
CREATE INDEX namespace_ssh_hosts_private_key_secret ON namespace_ssh_hosts (private_key_secret_id);
