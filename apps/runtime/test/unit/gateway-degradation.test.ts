import { describe, expect, it } from 'vitest';
import { degradationReader } from '../../src/gateway.ts';

/** What the reader concludes from these gateway output lines. */
function read(lines: string[]) {
  const reader = degradationReader();
  for (const line of lines) reader.onLine(line);
  return reader.degradation();
}

describe('what the gateway says about its state', () => {
  it('[S-2] OpenClaw 2026.9.5: a pending state migration names its plugin; one the same start completes is not unfinished', () => {
    // Lines the pinned 2026.9.5 printed for a start with one installed and one rejected npm plugin.
    expect(
      read([
        '[state-migrations] Plugin "occ-fixture-good" state migration is pending: The configured plugin package is missing or has not converged. pluginId=occ-fixture-good status=pending',
        '[state-migrations] Plugin "occ-fixture-rejected" state migration is pending: The configured plugin package is missing or has not converged. pluginId=occ-fixture-rejected status=pending',
        '[state-migrations] Deferred state migration completed for plugin "occ-fixture-good".',
        '[state-migrations] Startup migration warnings; continuing with degraded state.',
      ]),
    ).toEqual({ degraded: true, unfinished: ['occ-fixture-rejected'], selfInstalls: [] });
  });

  it('[S-2] OpenClaw 2026.9.6 wording: an unfinished data/settings upgrade and a self-install attempt', () => {
    expect(
      read(['Plugin "matrix" data/settings upgrade is unfinished: …', 'Failed to install missing configured plugin "meta" from clawhub:@openclaw/meta-provider: fetch failed']),
    ).toEqual({ degraded: false, unfinished: ['matrix'], selfInstalls: ['meta'] });
  });
});
