/**
 * Where things are inside a runtime container (the image of apps/runtime/Dockerfile): one private
 * writable area mounted at `root` (a tmpfs in Docker, an emptyDir in Kubernetes) holding the home,
 * the temporary directory, the revision directory and the Agent's OpenClaw state; everything
 * else is the read-only image.
 */
export const CONTAINER_PATHS = {
  root: '/var/lib/occ',
  home: '/var/lib/occ/home',
  tmp: '/var/lib/occ/tmp',
  revisionDir: '/var/lib/occ/revision',
  stateDir: '/var/lib/occ/state',
  /** The operator's curated catalog (OCC_OPENCLAW_CATALOG), mounted read-only when set. */
  catalog: '/etc/occ/catalog.json',
  /** Read-only files the driver mounts (CA bundles the network settings name). */
  network: '/etc/occ/network',
  /** The Installation's local Codex marketplaces (OCC_CODEX_MARKETPLACES), each mounted read-only at `<this>/<index>`. */
  codexMarketplaces: '/etc/occ/codex-marketplaces',
  /** A candidate prepared beside the serving container: the driver's directory (read-only) where its go is written (docker/proceed-marker.ts). */
  proceed: '/etc/occ/proceed',
} as const;

/** The non-root user the image runs as. */
export const CONTAINER_USER = 10001;
