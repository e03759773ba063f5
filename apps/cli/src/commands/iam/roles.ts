import { Option, type Command } from 'commander';
import { ACTIONS, type Permission, type Role } from '@occ/contracts';
import { action } from '../../command-context.ts';
import { CliError, EXIT } from '../../exit-codes.ts';
import { readResourceFile } from '../../input/read-input.ts';
import { age, note, printList, printOne, type View } from '../../output/render.ts';
import { example } from '../../program.ts';
import { roleId } from './references.ts';

/** `secret(read,update) agent(*)`: the actions of each kind, `*` when a kind holds all of them. */
function summarizePermissions(permissions: readonly Permission[]): string {
  const byKind = new Map<string, string[]>();
  for (const { action: verb, resourceKind } of permissions) byKind.set(resourceKind, [...(byKind.get(resourceKind) ?? []), verb]);
  return [...byKind].map(([kind, verbs]) => `${kind}(${ACTIONS.every((a) => verbs.includes(a)) ? '*' : verbs.join(',')})`).join(' ');
}

const view: View<Role> = {
  kind: 'role',
  id: (r) => r.id,
  name: (r) => r.name,
  wide: [['created', (r) => r.createdAt]],
  columns: [
    ['name', (r) => r.name],
    ['id', (r) => r.id],
    ['permissions', (r) => summarizePermissions(r.permissions)],
    ['age', (r) => age(r.createdAt)],
  ],
};

/** `read:secret` → `{ action: 'read', resourceKind: 'secret' }`; the server validates the words. */
function permissionFlag(value: string, previous: Permission[] = []): Permission[] {
  const [verb, kind, extra] = value.split(':');
  if (!verb || !kind || extra !== undefined) throw new CliError(`--permission is ACTION:KIND, e.g. read:secret (got ${JSON.stringify(value)})`, EXIT.USAGE);
  return [...previous, { action: verb, resourceKind: kind } as Permission];
}

interface CreateFlags {
  file?: string;
  permission?: Permission[];
}

/** The create body: the file as it is (the API's body, so error pointers point into it), or the name and flags. */
async function createBody(name: string | undefined, flags: CreateFlags): Promise<Record<string, unknown>> {
  if (flags.file) {
    if (name || flags.permission) throw new CliError('Give the role either as -f FILE or as NAME --permission ACTION:KIND …, not both', EXIT.USAGE);
    return readResourceFile(flags.file);
  }
  if (!name || !flags.permission) throw new CliError('Give -f FILE, or NAME with at least one --permission ACTION:KIND', EXIT.USAGE);
  return { name, permissions: flags.permission };
}

export function registerRoleCommands(program: Command): void {
  const group = program.command('roles').description('Roles: named sets of permissions (ACTION on a resource KIND) that bindings grant.');
  example(group.command('list').description('List the roles.'), 'occ roles list').action(
    action(async ({ connection, options }) => {
      printList({ items: await connection.client.listAll('listRoles', {}), nextCursor: null }, view, options);
    }),
  );
  example(group.command('get').argument('<role>', 'name or id').description('Show one role (-o yaml lists its permissions).'), 'occ roles get deployer -o yaml').action(
    action(async ({ connection, options }, [ref]) => {
      printOne((await connection.client.call('getRole', { params: { id: await roleId(connection.client, ref!) } })).data, view, options);
    }),
  );
  example(
    group
      .command('create')
      .argument('[name]')
      .addOption(new Option('-f, --file <path>', 'the role as JSON or YAML: name, permissions [{ action, resourceKind }] (- = standard input)'))
      .addOption(new Option('--permission <action:kind>', `a permission (repeatable); actions: ${ACTIONS.join(', ')}`).argParser(permissionFlag))
      .description('Create a role from a file, or from a name and --permission flags.'),
    'occ roles create -f deployer.yaml',
    'occ roles create viewer --permission read:namespace --permission read:agent',
  ).action(
    action<CreateFlags>(async ({ connection, options }, [name], flags) => {
      const body = await createBody(name, flags);
      printOne((await connection.client.call('createRole', { body: body as never })).data, view, options);
    }),
  );
  example(group.command('delete').argument('<role>', 'name or id').description('Delete a role no binding uses.'), 'occ roles delete deployer').action(
    action(async ({ connection, options }, [ref]) => {
      await connection.client.call('deleteRole', { params: { id: await roleId(connection.client, ref!) } });
      note(`Role ${ref} deleted.`, options);
    }),
  );
}
