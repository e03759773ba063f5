import { readFileSync } from 'node:fs';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { idPattern, RuntimeManifestSchema, type RuntimeManifest } from '@occ/contracts';
import { codexHostedRules, openclawCuratedRules } from '@occ/policy';
import type { ManifestSource } from './environment.ts';
import { StartupFailure } from './failure.ts';

const isManifest = TypeCompiler.Compile(RuntimeManifestSchema);
/** Per harness, the PluginDriver whose selections this runtime installs: OpenClaw's curated catalog, Codex's marketplaces. */
const DRIVER_BY_HARNESS: Readonly<Record<RuntimeManifest['harness'], string>> = {
  openclaw: openclawCuratedRules.driverId,
  codex: codexHostedRules.driverId,
};
/** The Configuration alone may hold 256 KiB; the rest is small. */
const MAX_MANIFEST_BYTES = 1024 * 1024;
const REVISION_ID = new RegExp(idPattern('agent_revision'));

export interface ManifestReading {
  /** The revision id as far as it could be read: a status needs it even when the manifest is invalid. */
  revisionId: string | null;
  result: RuntimeManifest | StartupFailure;
}

/** Reads and validates the runtime manifest (a file, or inline): the OpenClaw or the Codex harness, each with its own plugin driver. */
export function readManifest(source: ManifestSource): ManifestReading {
  let raw: unknown;
  try {
    const text = 'json' in source ? source.json : readFileSync(source.path, 'utf8');
    if (Buffer.byteLength(text) > MAX_MANIFEST_BYTES) return invalid(null, 'The runtime manifest is larger than 1 MiB.');
    raw = JSON.parse(text);
  } catch {
    return invalid(null, 'The runtime manifest cannot be read as JSON.');
  }
  const candidate = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).revisionId : undefined;
  const revisionId = typeof candidate === 'string' && REVISION_ID.test(candidate) ? candidate : null;
  if (!isManifest.Check(raw)) return invalid(revisionId, 'The runtime manifest does not match the manifest schema.');
  const { driverId, selections } = raw.plugins;
  if (driverId !== null && driverId !== DRIVER_BY_HARNESS[raw.harness]) return invalid(revisionId, 'The plugin driver is not one this runtime serves for the harness.');
  if (driverId === null && Object.keys(selections).length > 0) return invalid(revisionId, 'Plugin selections without a plugin driver.');
  return { revisionId, result: raw };
}

function invalid(revisionId: string | null, message: string): ManifestReading {
  return { revisionId, result: new StartupFailure('RUNTIME_MANIFEST_INVALID', message) };
}
