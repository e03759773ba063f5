import { describe, expect, it } from 'vitest';
import type { AgentRevision, StartupFailureDetail } from '@occ/contracts';
import { startupFailureMessage } from '../../src/core/startup-failure-message.ts';

const KEY = 'openclaw:@openclaw/does-not-exist-xyz';
const revision = { plugins: { [KEY]: { enabled: true }, browser: { enabled: true, tools: { 'made.up': { enabled: false } } } } } as unknown as AgentRevision;
const detail = (plugin: string, code: StartupFailureDetail['violation']['code'], at = ''): StartupFailureDetail => ({ plugin, violation: { code, at } });

describe('the message of a failed start', () => {
  it('names the code alone when the runtime reported no selection', () => {
    expect(startupFailureMessage(revision, 'GATEWAY_START_FAILED', undefined)).toBe('The runtime did not start (GATEWAY_START_FAILED).');
  });

  it('names the plugin (never a JSON-pointer escape) and the reason in plain words', () => {
    expect(startupFailureMessage(revision, 'PLUGIN_POLICY_INVALID', detail(KEY, 'UNSUPPORTED_VALUE'))).toBe(
      "The runtime did not start (PLUGIN_POLICY_INVALID): plugin openclaw:@openclaw/does-not-exist-xyz is not in the runtime's plugin catalog.",
    );
    expect(startupFailureMessage(revision, 'PLUGIN_POLICY_INVALID', detail('browser', 'INVALID_VALUE', '/tools/made.up'))).toBe(
      'The runtime did not start (PLUGIN_POLICY_INVALID): plugin browser does not register the tool made.up.',
    );
    expect(startupFailureMessage(revision, 'PLUGIN_POLICY_INVALID', detail('browser', 'INVALID_COMBINATION', '/enabled'))).toBe(
      'The runtime did not start (PLUGIN_POLICY_INVALID): plugin browser (enabled) conflicts with another selection or with the Configuration.',
    );
    expect(startupFailureMessage(revision, 'PLUGIN_POLICY_INVALID', detail('browser', 'INVALID_COMBINATION'))).toBe(
      'The runtime did not start (PLUGIN_POLICY_INVALID): plugin browser conflicts with another selection or with the Configuration.',
    );
  });

  it('never names a selection the revision does not have, nor a place that is not in the selection', () => {
    expect(startupFailureMessage(revision, 'PLUGIN_POLICY_INVALID', detail('openclaw:other', 'UNSUPPORTED_VALUE'))).toBe('The runtime did not start (PLUGIN_POLICY_INVALID).');
    expect(startupFailureMessage(revision, 'PLUGIN_POLICY_INVALID', detail('__proto__', 'UNSUPPORTED_VALUE'))).toBe('The runtime did not start (PLUGIN_POLICY_INVALID).');
    expect(startupFailureMessage(revision, 'PLUGIN_POLICY_INVALID', detail('browser', 'INVALID_VALUE', '/tools/invented'))).toBe(
      'The runtime did not start (PLUGIN_POLICY_INVALID): plugin browser has a value the runtime refuses.',
    );
  });
});
