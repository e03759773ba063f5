import { ACTIONS, HARNESSES, RESOURCE_KINDS, type Installation, type InstallationCapabilities, type Permission } from '@occ/contracts';
import { recordAudit } from '../audit/record.ts';
import type { ControllerDeps } from '../deps.ts';
import { notFound } from '../errors.ts';
import { generateApiKey } from '../iam/api-keys.ts';
import { newId } from '../ids.ts';
import { harnessCapabilities } from './plugin-policies.ts';

function installationCapabilities(deps: ControllerDeps): InstallationCapabilities {
  const harnesses = Object.fromEntries(HARNESSES.map((h) => [h, harnessCapabilities(deps.pluginDrivers, h)]));
  return { harnesses: harnesses as InstallationCapabilities['harnesses'] };
}

export async function getInstallation(deps: ControllerDeps): Promise<Installation> {
  const record = await deps.state.read((uow) => uow.installation.get());
  if (!record) throw notFound('Installation');
  return { ...record, capabilities: installationCapabilities(deps) };
}

/** Every (action, kind) pair: what the bootstrap administrator role holds. */
const ALL_PERMISSIONS: Permission[] = RESOURCE_KINDS.flatMap((resourceKind) => ACTIONS.map((action) => ({ action, resourceKind })));

const ADMIN_ROLE_NAME = 'installation-administrator';
const ADMIN_KEY_DAYS = 365;

export type BootstrapResult = { created: false } | { created: true; installationId: string; defaultNamespaceId: string; adminKey: string };

/**
 * First start: creates the Installation, the `default` Namespace, the administrator role, an
 * administrator principal bound to it Installation-wide, and one API key (returned once).
 * Idempotent: when the Installation exists nothing is changed.
 */
export async function bootstrapInstallation(deps: ControllerDeps, name = 'OCC'): Promise<BootstrapResult> {
  return deps.state.transact(async (uow) => {
    const installationId = newId('installation');
    if (!(await uow.installation.create({ id: installationId, name }))) return { created: false };
    const ns = await uow.namespaces.insert({ id: newId('namespace'), name: 'default' });
    const role = await uow.iam.insertRole({ id: newId('role'), name: ADMIN_ROLE_NAME, permissions: ALL_PERMISSIONS });
    const admin = await uow.iam.insertPrincipal({ id: newId('principal'), kind: 'human', name: 'administrator' });
    const binding = await uow.iam.insertBinding({ id: newId('access_binding'), principalId: admin.id, roleId: role.id });
    const key = generateApiKey();
    const expiresAt = new Date(deps.now().getTime() + ADMIN_KEY_DAYS * 86_400_000);
    const apiKey = await uow.iam.insertApiKey({
      id: newId('api_key'),
      principalId: admin.id,
      name: 'bootstrap administrator key',
      keyHash: key.hash,
      prefix: key.prefix,
      expiresAt,
    });
    await recordAudit(
      uow,
      { principalId: admin.id, requestId: 'bootstrap', policy: { principalId: admin.id, bindings: [], restrictions: [] } },
      {
        action: 'installation.bootstrap',
        resource: { kind: 'installation', id: installationId },
        details: { defaultNamespaceId: ns.id, roleId: role.id, bindingId: binding.id, apiKeyId: apiKey.id },
      },
    );
    return { created: true, installationId, defaultNamespaceId: ns.id, adminKey: key.key };
  });
}
