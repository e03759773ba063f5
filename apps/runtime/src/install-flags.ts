import { StartupFailure } from './failure.ts';
import { logEvent } from './log.ts';
import type { OpenClawCommands } from './openclaw-commands.ts';

/** Optional `plugins install` flags, detected from the pinned CLI's own help rather than assumed. */
export interface InstallFlags {
  /** Install without touching enablement or allow/deny lists (absent in 2026.9.5). */
  noEnable: boolean;
  /** Non-interactive capability consent for third-party packages. */
  acceptCapabilities: boolean;
}

export function parseInstallHelp(help: string): InstallFlags {
  const has = (flag: string) => new RegExp(`(^|[\\s,])${flag}(?=[\\s,=]|$)`, 'm').test(help);
  return { noEnable: has('--no-enable'), acceptCapabilities: has('--accept-capabilities') };
}

/**
 * The pinned CLI's optional install flags: from its help as set-up recorded it (one read per
 * toolchain, no process), else from asking the CLI (`plugins install --help`, seconds of CPU).
 */
export async function detectInstallFlags(cli: OpenClawCommands, timeoutMs: number, recordedHelp: string | null = null): Promise<InstallFlags> {
  if (recordedHelp !== null && /--pin\b/.test(recordedHelp)) return logged(parseInstallHelp(recordedHelp), 'set-up');
  const outcome = await cli.installHelp({ timeoutMs });
  if (outcome.kind !== 'exited' || outcome.code !== 0 || !/--pin\b/.test(outcome.stdout)) {
    throw new StartupFailure('PLUGIN_INSTALL_ERROR', 'The pinned OpenClaw CLI did not describe its plugins install command.');
  }
  return logged(parseInstallHelp(outcome.stdout), 'cli');
}

function logged(flags: InstallFlags, from: 'set-up' | 'cli'): InstallFlags {
  logEvent('plugin.install.flags', { noEnable: flags.noEnable, acceptCapabilities: flags.acceptCapabilities, from });
  return flags;
}

/**
 * `openclaw plugins install <package>@<version> --pin --force`, plus `--no-enable` where the
 * runtime has it. `--accept-capabilities` where it exists: the curated catalog is the reviewed
 * capability surface and the Agent's admitted selection is the operator's consent; without it a
 * non-interactive install of any third-party package stops at the consent prompt.
 */
export function installArgs(packageName: string, version: string, flags: InstallFlags): string[] {
  return [
    'plugins',
    'install',
    `${packageName}@${version}`,
    '--pin',
    '--force',
    ...(flags.noEnable ? ['--no-enable'] : []),
    ...(flags.acceptCapabilities ? ['--accept-capabilities'] : []),
  ];
}
