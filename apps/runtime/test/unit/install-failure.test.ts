import { describe, expect, it } from 'vitest';
import { classifyInstallFailure, npmTransportCode } from '../../src/install-failure.ts';
import type { CliOutcome } from '../../src/openclaw-cli.ts';
import { loadRecording } from '../support/recorded-commands.ts';

/** The recorded outcome of the scenario's install of `packageName`. */
function recordedInstall(scenario: string, packageName: string): CliOutcome {
  const call = loadRecording(scenario).calls.find((found) => found.command === 'install' && found.args[0] === packageName);
  if (!call) throw new Error(`${scenario} recorded no install of ${packageName}`);
  return call.outcome;
}

const GOOD = '@occ-fixtures/openclaw-good';
const REJECTED = '@occ-fixtures/openclaw-rejected';

describe('install failures, judged on what the pinned CLI really printed', () => {
  it('[W-1] a package OpenClaw refuses (normal non-zero exit, no transport error) is a rejection: PLUGIN_INSTALL_FAILED', () => {
    const outcome = recordedInstall('fresh-start', REJECTED);
    expect(outcome).toMatchObject({ kind: 'exited', code: 1, stderr: expect.stringContaining('configSchema') });
    expect(classifyInstallFailure(outcome)).toEqual({ kind: 'rejected', exitCode: 1 });
  });

  it('[W-2] a registry that is down is an unreachable source, named by npm’s code', () => {
    const outcome = recordedInstall('source-down', GOOD);
    expect(outcome).toMatchObject({ kind: 'exited', code: 1 });
    expect(classifyInstallFailure(outcome)).toEqual({ kind: 'unreachable', reason: 'ECONNREFUSED' });
  });

  it('[W-2] a registry behind a CA nobody trusts is an unreachable source (SELF_SIGNED_CERT_IN_CHAIN)', () => {
    const outcome = recordedInstall('source-untrusted-tls', GOOD);
    expect(outcome).toMatchObject({ kind: 'exited', code: 1 });
    expect(classifyInstallFailure(outcome)).toEqual({ kind: 'unreachable', reason: 'SELF_SIGNED_CERT_IN_CHAIN' });
  });

  it('[W-2] an install still retrying at its deadline is unreachable (npm had not said why yet: DEADLINE_EXCEEDED)', () => {
    // Recorded with npm's default retries against a closed port and an 80 s deadline.
    const outcome = recordedInstall('source-down-deadline', GOOD);
    expect(outcome.kind).toBe('timeout');
    expect(classifyInstallFailure(outcome)).toEqual({ kind: 'unreachable', reason: 'DEADLINE_EXCEEDED' });
    // Had npm already reported its code, the deadline's reason would name it.
    expect(classifyInstallFailure({ kind: 'timeout', stderr: 'npm view failed: npm error code ECONNREFUSED\n' })).toEqual({ kind: 'unreachable', reason: 'ECONNREFUSED' });
  });

  it('[W-2] a deadline or signal with nothing said, a CLI that cannot run, and a shutdown', () => {
    expect(classifyInstallFailure({ kind: 'timeout', stderr: '' })).toEqual({ kind: 'unreachable', reason: 'DEADLINE_EXCEEDED' });
    expect(classifyInstallFailure({ kind: 'signal', signal: 'SIGKILL', stderr: 'Downloading…' })).toEqual({ kind: 'unreachable', reason: 'SIGKILL' });
    expect(classifyInstallFailure({ kind: 'signal', signal: 'weird name', stderr: '' })).toEqual({ kind: 'unreachable', reason: 'SIGNAL' });
    expect(classifyInstallFailure({ kind: 'spawn-error' })).toEqual({ kind: 'broken', reason: 'SPAWN_ERROR' });
    expect(classifyInstallFailure({ kind: 'output-too-large' })).toEqual({ kind: 'broken', reason: 'OUTPUT_TOO_LARGE' });
    // The prepare's OpenClaw process ended before the install answered: never a rejection that would quietly disable the selection.
    expect(classifyInstallFailure({ kind: 'no-answer', code: 1, stderr: 'Cannot find module' })).toEqual({ kind: 'broken', reason: 'NO_ANSWER' });
    expect(classifyInstallFailure({ kind: 'aborted' })).toEqual({ kind: 'aborted' });
  });

  it('[W-1][W-2] npm codes: transport and registry-side codes (either npm spelling) are unreachable; package-level ones stay rejections', () => {
    const exited = (stderr: string): CliOutcome => ({ kind: 'exited', code: 1, stdout: '', stderr });
    for (const code of ['ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_HAS_EXPIRED', 'E503', 'E401', 'E407']) {
      expect(classifyInstallFailure(exited(`npm view failed: npm error code ${code}\nnpm error errno ${code}\n`))).toEqual({ kind: 'unreachable', reason: code });
    }
    expect(classifyInstallFailure(exited('npm ERR! code ENOTFOUND\n'))).toEqual({ kind: 'unreachable', reason: 'ENOTFOUND' });
    for (const code of ['E404', 'ETARGET', 'EINTEGRITY', 'EBADENGINE']) {
      expect(classifyInstallFailure(exited(`npm error code ${code}\n`))).toEqual({ kind: 'rejected', exitCode: 1 });
    }
    // A code only counts on npm's own line: a plugin's text that mentions one is no transport error.
    expect(npmTransportCode('plugin says npm error code ECONNREFUSED is bad\nnpm error code ECONNREFUSEDX\nsee npm error code ECONNREFUSED\n')).toBeNull();
    expect(npmTransportCode('npm view failed: npm error code ECONNREFUSED\n')).toBe('ECONNREFUSED');
  });
});
