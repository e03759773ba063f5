import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalComputeDriver } from '../../src/drivers/compute/local/index.ts';
import { revisionPaths } from '../../src/drivers/compute/local/layout.ts';
import { deriveToken, loadDriverKey } from '../../src/drivers/compute/runtime-contract/driver-key.ts';
import { LOG_LINE_BYTES, LOG_READ_BYTES } from '../../src/drivers/compute/local/log-tail.ts';
import { prepareSettled, probeStandInGateway, standInLaunch, standInRevision, tempRoot, STAND_IN_CONFINEMENT } from '../../../../test-support/stand-in-runtime.ts';
import { StaticStartAuthority } from '../../../../test-support/static-start-authority.ts';

/** The runtime log: the runtime's stdout/stderr in a 0600 file, read back bounded. */
const root = tempRoot();
const driver = createLocalComputeDriver({
  confinement: STAND_IN_CONFINEMENT,
  rootDir: root,
  launch: standInLaunch,
  probeGateway: probeStandInGateway,
  readyWaitMs: 300,
  stopGraceMs: 500,
});
driver.start(new StaticStartAuthority());
afterAll(async () => {
  await driver.close();
  rmSync(root, { recursive: true, force: true });
});

/** A log file with exactly this content for a fresh revision. */
function logWith(content: string | Buffer) {
  const { revision } = standInRevision({});
  const paths = revisionPaths(root, revision.agentId, revision.id);
  mkdirSync(paths.logs, { recursive: true });
  writeFileSync(paths.logFile, content);
  return revision;
}

describe('local ComputeDriver: runtime logs', () => {
  it("captures the runtime's output and the driver's own supervision lines", async () => {
    const { revision, manifest } = standInRevision({ logLines: 3 });
    await prepareSettled(driver, revision, manifest);
    await driver.stopRevision(revision, revision.id, { signal: AbortSignal.timeout(10_000) });
    const { lines, truncated } = await driver.readLogs(revision, revision.id, { tail: 100 });
    expect(truncated).toBe(false);
    expect(lines.some((l) => /\[occ-local\] runtime started \(pid \d+\)/.test(l))).toBe(true);
    expect(lines.filter((l) => l.startsWith('stand-in line '))).toEqual(['stand-in line 0 ', 'stand-in line 1 ', 'stand-in line 2 ']);
    expect(lines.at(-1)).toMatch(/\[occ-local\] stopped$/);
  });

  it('never shows a runtime token, whatever a tool printed into the log', async () => {
    const { revision } = standInRevision({});
    const key = loadDriverKey(root);
    const gateway = deriveToken(key, 'gateway', revision.id);
    const status = deriveToken(key, 'startup-status', revision.id);
    const transport = deriveToken(key, 'app-server-transport', revision.id);
    const paths = revisionPaths(root, revision.agentId, revision.id);
    mkdirSync(paths.logs, { recursive: true });
    writeFileSync(paths.logFile, `gateway url ws://127.0.0.1:1/?token=${gateway}\nAuthorization: Bearer ${status}\ntransport ${transport}\nplain line\n`);
    const { lines } = await driver.readLogs(revision, revision.id, { tail: 10 });
    expect(lines).toEqual(['gateway url ws://127.0.0.1:1/?token=[redacted]', 'Authorization: Bearer [redacted]', 'transport [redacted]', 'plain line']);
  });

  it('redacts a token before a line is cut: no prefix of a token that straddles the 4 KiB cut survives', async () => {
    const { revision } = standInRevision({});
    const key = loadDriverKey(root);
    const tokens = [deriveToken(key, 'gateway', revision.id), deriveToken(key, 'startup-status', revision.id)];
    const paths = revisionPaths(root, revision.agentId, revision.id);
    mkdirSync(paths.logs, { recursive: true });
    // Each token starts 6 bytes before the cut: cutting first would have left its first 6 characters.
    const filler = 'x'.repeat(LOG_LINE_BYTES - 6);
    writeFileSync(paths.logFile, tokens.map((token) => `${filler}${token} tail\n`).join(''));
    const { lines, truncated } = await driver.readLogs(revision, revision.id, { tail: 10 });
    expect(lines).toEqual([`${filler}[redac`, `${filler}[redac`]);
    expect(truncated).toBe(true);
    for (const token of tokens) expect(lines.join('\n')).not.toContain(token.slice(0, 6));
  });

  it('returns the last N lines, and says when earlier ones exist', async () => {
    const revision = logWith(Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n') + '\n');
    expect(await driver.readLogs(revision, revision.id, { tail: 3 })).toEqual({ lines: ['line 47', 'line 48', 'line 49'], truncated: true });
    expect((await driver.readLogs(revision, revision.id, { tail: 50 })).truncated).toBe(false);
    expect((await driver.readLogs(revision, revision.id, { tail: 1000 })).lines).toHaveLength(50);
  });

  it('reads at most the last 256 KiB (dropping the partial first line) and cuts each line to 4 KiB', async () => {
    const long = 'y'.repeat(LOG_LINE_BYTES * 3);
    const revision = logWith(`${'z'.repeat(LOG_READ_BYTES * 2)}\nfirst whole line\n${long}\nlast`);
    const { lines, truncated } = await driver.readLogs(revision, revision.id, { tail: 1000 });
    expect(truncated).toBe(true);
    expect(lines).toEqual(['first whole line', 'y'.repeat(LOG_LINE_BYTES), 'last']);
  });

  it('never splits a multi-byte character when cutting a line', async () => {
    const revision = logWith(`${'é'.repeat(LOG_LINE_BYTES)}\n`);
    const [line] = (await driver.readLogs(revision, revision.id, { tail: 1 })).lines;
    expect(Buffer.byteLength(line!)).toBeLessThanOrEqual(LOG_LINE_BYTES);
    expect(line).toBe('é'.repeat(LOG_LINE_BYTES / 2));
  });

  it('a revision without a log has no lines; ids that are not ids never reach a path', async () => {
    const { revision } = standInRevision({});
    expect(await driver.readLogs(revision, revision.id, { tail: 10 })).toEqual({ lines: [], truncated: false });
    await expect(driver.readLogs(revision, '../../etc', { tail: 10 })).rejects.toThrow('Not a revision id.');
    await expect(driver.readLogs({ ...revision, agentId: '..' }, revision.id, { tail: 10 })).rejects.toThrow('Not an Agent id.');
  });
});
