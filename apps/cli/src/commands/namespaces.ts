import type { Command } from 'commander';
import type { Namespace, SavedNamespaceSshHost } from '@occ/contracts';
import { action } from '../command-context.ts';
import { namespaceId, secretId } from '../context/resolve.ts';
import { age, note, printList, printOne, type View } from '../output/render.ts';
import { example } from '../program.ts';

const view: View<Namespace> = {
  kind: 'namespace',
  id: (ns) => ns.id,
  name: (ns) => ns.name,
  columns: [
    ['name', (ns) => ns.name],
    ['id', (ns) => ns.id],
    ['age', (ns) => age(ns.createdAt)],
  ],
  wide: [['created', (ns) => ns.createdAt]],
};

const sshHostView: View<SavedNamespaceSshHost> = {
  kind: 'ssh-host',
  id: (host) => host.namespaceId,
  columns: [
    ['address', (host) => host.address],
    ['user', (host) => host.user],
    ['key secret', (host) => host.privateKeySecretId],
    ['updated', (host) => age(host.updatedAt)],
  ],
  wide: [['host key', (host) => host.hostKey]],
};

export function registerNamespaceCommands(program: Command): void {
  const group = program.command('namespaces').alias('ns').description('Namespaces: where Agents, Secrets and Configurations live.');
  example(group.command('list').description('List the Namespaces you can see.'), 'occ namespaces list -o json').action(
    action(async ({ connection, options }) => {
      printList({ items: await connection.client.listAll('listNamespaces', {}), nextCursor: null }, view, options);
    }),
  );
  example(group.command('get').argument('<namespace>', 'name or id').description('Show one Namespace.'), 'occ namespaces get team-a').action(
    action(async ({ connection, options }, [ref]) => {
      const id = await namespaceId(connection.client, ref);
      printOne((await connection.client.call('getNamespace', { params: { ns: id } })).data, view, options);
    }),
  );
  example(group.command('create').argument('<name>').description('Create a Namespace.'), 'occ namespaces create team-a').action(
    action(async ({ connection, options }, [name]) => {
      printOne((await connection.client.call('createNamespace', { params: undefined, body: { name: name! } })).data, view, options);
    }),
  );
  example(group.command('delete').argument('<namespace>', 'name or id').description('Delete an empty Namespace.'), 'occ namespaces delete team-a').action(
    action(async ({ connection, options }, [ref]) => {
      const id = await namespaceId(connection.client, ref);
      await connection.client.call('deleteNamespace', { params: { ns: id } });
      note(`Namespace ${ref} deleted.`, options);
    }),
  );
  registerSshHostCommands(group);
}

/** Where the ssh ComputeDriver runs a Namespace's Agents (docs/compute-ssh.md, "Hosts"); saving one is Installation administration. */
function registerSshHostCommands(namespaces: Command): void {
  const group = namespaces.command('ssh-host').description("A Namespace's SSH host: where the ssh ComputeDriver runs its Agents.");
  example(group.command('get').argument('<namespace>', 'name or id').description("Show the Namespace's SSH host."), 'occ namespaces ssh-host get team-a').action(
    action(async ({ connection, options }, [ref]) => {
      const ns = await namespaceId(connection.client, ref);
      printOne((await connection.client.call('getNamespaceSshHost', { params: { ns } })).data, sshHostView, options);
    }),
  );
  example(
    group
      .command('set')
      .argument('<namespace>', 'name or id')
      .requiredOption('--address <host[:port]>', 'the host, port 22 by default')
      .requiredOption('--user <name>', 'the POSIX account the runtimes run as')
      .requiredOption('--host-key <key>', "the host's public key line or its SHA256: fingerprint, pinned")
      .requiredOption('--private-key-secret <secret>', "a Secret of the Namespace holding OCC's client key (name or id)")
      .description("Save the Namespace's SSH host (checked before it is saved; refused while one of its Agents runs)."),
    'occ namespaces ssh-host set team-a --address 10.0.0.5 --user occ-agents --host-key "$(cat host_ed25519.pub)" --private-key-secret ssh-client-key',
  ).action(
    action<{ address: string; user: string; hostKey: string; privateKeySecret: string }>(async ({ connection, options }, [ref], flags) => {
      const ns = await namespaceId(connection.client, ref);
      const body = { address: flags.address, user: flags.user, hostKey: flags.hostKey, privateKeySecretId: await secretId(connection.client, ns, flags.privateKeySecret) };
      printOne((await connection.client.call('putNamespaceSshHost', { params: { ns }, body })).data, sshHostView, options);
    }),
  );
  example(group.command('delete').argument('<namespace>', 'name or id').description("Remove the Namespace's SSH host."), 'occ namespaces ssh-host delete team-a').action(
    action(async ({ connection, options }, [ref]) => {
      const ns = await namespaceId(connection.client, ref);
      await connection.client.call('deleteNamespaceSshHost', { params: { ns } });
      note(`The SSH host of Namespace ${ref} was removed.`, options);
    }),
  );
}
