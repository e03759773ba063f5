import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBundle } from './runtime-bundle.ts';
import { pinnedToolchain } from './toolchain.ts';

/** How a compute driver starts a runtime process: `spawn(command, args)` with the environment in README.md. */
export interface RuntimeLaunchCommand {
  command: string;
  args: string[];
  /** What the command reads of this host (its code and pinned toolchain): all a confined runtime is shown of the checkout. */
  readOnly: string[];
}

/**
 * The pinned Node 24 running the runtime bundled into one module beside `src/entry.ts`
 * (runtime-bundle.ts; built when its sources changed), or, when it cannot be built or written here
 * (a read-only checkout), `src/entry.ts` itself through tsx's ESM loader. Absolute paths, so the
 * working directory does not matter. The started process is the runtime itself: its pid is the one
 * `endpoint.json` names.
 */
export function runtimeLaunchCommand(): RuntimeLaunchCommand {
  const source = sourceLaunchCommand();
  try {
    return { ...source, args: [runtimeBundle()] };
  } catch {
    return source;
  }
}

/** The path of the runtime's bundle (runtime-bundle.ts), built first when stale; what the runtime image runs too. Throws when it cannot be built or written. */
export function runtimeBundle(): string {
  const entry = fileURLToPath(new URL('./entry.ts', import.meta.url));
  return ensureBundle(entry, externalPackages(dirname(dirname(entry)))).path;
}

/**
 * The packages the runtime's bundle leaves to Node: every dependency of the runtime and of the
 * workspace packages it bundles (`@occ/*`, read from `packages/<name>`), but those.
 */
function externalPackages(runtimeDir: string): string[] {
  const workspace = dirname(dirname(runtimeDir));
  const external = new Set<string>();
  const visited = new Set<string>();
  const visit = (packageJson: string) => {
    const { dependencies = {} } = JSON.parse(readFileSync(packageJson, 'utf8')) as { dependencies?: Record<string, string> };
    for (const name of Object.keys(dependencies)) {
      if (!name.startsWith('@occ/')) external.add(name);
      else if (!visited.has(name)) {
        visited.add(name);
        visit(join(workspace, 'packages', name.slice('@occ/'.length), 'package.json'));
      }
    }
  };
  visit(join(runtimeDir, 'package.json'));
  return [...external].sort();
}

/** `src/entry.ts` through tsx's ESM loader: the runtime from its sources (what an SSH host runs, and the fallback). */
function sourceLaunchCommand(): RuntimeLaunchCommand {
  const require = createRequire(import.meta.url);
  const loader = require.resolve('tsx/esm');
  const entry = fileURLToPath(new URL('./entry.ts', import.meta.url));
  const runtimeDir = dirname(dirname(entry));
  const workspace = dirname(dirname(runtimeDir));
  // The runtime's own directory (code and toolchain), the workspace packages it imports, the
  // dependencies tsx resolves: never the rest of the checkout (a default data directory lives there).
  const readOnly = [
    runtimeDir,
    join(workspace, 'packages'),
    join(workspace, 'node_modules'),
    join(workspace, 'package.json'),
    join(workspace, 'tsconfig.json'),
    dirname(dirname(loader)),
  ];
  return { command: pinnedToolchain().nodeBinary, args: ['--import', loader, entry], readOnly: [...new Set(readOnly)].filter((path) => existsSync(path)) };
}

/** How the ssh ComputeDriver starts a runtime on a host that holds OCC's workspace at `workspace` (docs/compute-ssh.md). */
export interface HostLaunchCommand {
  /** The pinned Node on the host: it runs the launcher and the runtime. */
  node: string;
  /** `node <launcher>` reads the start from stdin (src/host-launch.mjs). */
  launcher: string;
  /** `node <runtimeArgs>` is the runtime, as `runtimeLaunchCommand` starts it here. */
  runtimeArgs: string[];
}

/**
 * `runtimeLaunchCommand`'s paths moved from this checkout to `workspace` on another host: the host
 * holds the same workspace (an OCC release after `npm ci`), so every path is the same one relative
 * to its root. Throws when a path lies outside this checkout (nothing to move it by).
 */
export function hostLaunchCommand(workspace: string): HostLaunchCommand {
  // The host holds an OCC release after `npm ci`, not this checkout's bundle: it runs the sources.
  const here = sourceLaunchCommand();
  const entry = fileURLToPath(new URL('./entry.ts', import.meta.url));
  const localWorkspace = dirname(dirname(dirname(dirname(entry))));
  const onHost = (path: string) => {
    const inside = relative(localWorkspace, path);
    if (inside.startsWith('..') || isAbsolute(inside)) throw new Error(`${path} is outside the workspace: it has no place on another host.`);
    return posix.join(workspace, ...inside.split(sep));
  };
  return {
    node: onHost(here.command),
    launcher: onHost(fileURLToPath(new URL('./host-launch.mjs', import.meta.url))),
    runtimeArgs: here.args.map((arg) => (isAbsolute(arg) ? onHost(arg) : arg)),
  };
}
