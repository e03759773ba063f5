import { isAbsolute, resolve } from 'node:path';
import type { OpenClawInstallRow } from '@occ/policy';
import { cliFailure } from './cli-failure.ts';
import { containedIn } from './contained-in.ts';
import { StartupFailure } from './failure.ts';
import { logEvent } from './log.ts';
import { parseJsonOutput, type CliOutcome } from './openclaw-cli.ts';

/** The parts of `openclaw plugins inspect <id> --json` the runtime checks (2026.9.5 shape). */
interface Inspection {
  plugin?: { id?: unknown; packageName?: unknown; version?: unknown; packageVersion?: unknown; source?: unknown; rootDir?: unknown };
  install?: {
    source?: unknown;
    installPath?: unknown;
    resolvedName?: unknown;
    resolvedVersion?: unknown;
    version?: unknown;
    integrity?: unknown;
    npmIntegrity?: unknown;
    acceptedSurfaceIntegrity?: unknown;
  };
}

/** The first value that is a string (OpenClaw records some facts under more than one name). */
function firstString(...values: unknown[]): string | undefined {
  return values.find((value): value is string => typeof value === 'string');
}

/**
 * What native inspection shows that does not match the admitted install row: plugin id, npm
 * source, package name, version (runtime and install record), recorded integrity, and that the
 * plugin's root and entry source lie inside the recorded install path (so bundled or stray
 * metadata cannot shadow the install). Returns the names of the failed checks; `[]` passes.
 */
export function inspectionProblems(row: OpenClawInstallRow, raw: unknown, realpath?: (path: string) => string): string[] {
  const inspection = (typeof raw === 'object' && raw !== null ? raw : {}) as Inspection;
  const plugin = inspection.plugin ?? {};
  const install = inspection.install ?? {};
  const problems: string[] = [];
  if (plugin.id !== row.pluginId) problems.push('plugin id');
  if (install.source !== 'npm') problems.push('install source');
  const packageNames = [install.resolvedName, plugin.packageName].filter((name) => name !== undefined);
  if (packageNames.length === 0 || packageNames.some((name) => name !== row.package)) problems.push('package name');
  const installVersion = firstString(install.resolvedVersion, install.version);
  const runtimeVersion = firstString(plugin.packageVersion, plugin.version);
  if (installVersion !== row.version || runtimeVersion !== row.version) problems.push('version');
  if (firstString(install.integrity, install.npmIntegrity, install.acceptedSurfaceIntegrity) !== row.integrity) problems.push('integrity');
  const installPath = firstString(install.installPath);
  const rootDir = firstString(plugin.rootDir);
  const source = firstString(plugin.source);
  const inside = (path: string | undefined) => installPath !== undefined && path !== undefined && isAbsolute(installPath) && containedIn(installPath, path, realpath);
  if (rootDir === undefined || !inside(rootDir) || (source !== undefined && !inside(resolve(rootDir, source)))) {
    problems.push('source containment');
  }
  return problems;
}

/** Each installed row against its `plugins inspect <pluginId> --json` outcome (same order); the first mismatch throws. */
export function verifyInstalls(rows: readonly OpenClawInstallRow[], inspections: readonly CliOutcome[]): void {
  rows.forEach((row, index) => {
    const outcome = inspections[index] ?? { kind: 'skipped' };
    if (outcome.kind !== 'exited' || outcome.code !== 0) throw cliFailure('PLUGIN_VERIFICATION_FAILED', `Inspecting ${row.selectionKey}`, outcome);
    const parsed = parseJsonOutput(outcome.stdout);
    if (!parsed.ok) throw new StartupFailure('PLUGIN_VERIFICATION_FAILED', `Inspecting ${row.selectionKey} printed malformed output.`);
    const problems = inspectionProblems(row, parsed.value);
    if (problems.length > 0) {
      logEvent('plugin.verify.failed', { selectionKey: row.selectionKey, checks: problems });
      throw new StartupFailure('PLUGIN_VERIFICATION_FAILED', `The installed ${row.selectionKey} does not match the catalog: ${problems.join(', ')}.`);
    }
    logEvent('plugin.verify.done', { selectionKey: row.selectionKey });
  });
}
