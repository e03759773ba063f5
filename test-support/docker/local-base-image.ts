// The base image the runtime image is built FROM in tests: nothing can be pulled here, so it is
// made from this machine's own Debian files (`docker import` of a tar). Only what the pinned
// Node 24 and OpenClaw need to run: the C/C++ runtime libraries, a shell (OpenClaw and npm spawn
// `sh`), coreutils (`/usr/bin/env` in npm's shebang) and the CA bundle.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const LOCAL_BASE_IMAGE = 'occ-local-base:bookworm';
/** Where the image records what it was made from; a base with the same value is not made again. */
const BASE_CONTENT_LABEL = 'org.occ.base-content';

const PACKAGES = ['libc6', 'libgcc-s1', 'libstdc++6', 'zlib1g', 'dash', 'coreutils', 'ca-certificates'];
/** Documentation and translations: not needed to run anything. */
const SKIPPED = /^\/usr\/share\/(doc|man|info|locale|lintian|bug)\//;
/** Bumped when the recipe below changes in a way the file list does not show. */
const RECIPE = 'occ-local-base/1';

const runtimeDir = fileURLToPath(new URL('../../apps/runtime/', import.meta.url));

function packageFiles(pkg: string): string[] {
  const listed = spawnSync('dpkg', ['-L', pkg], { encoding: 'utf8' });
  if (listed.status !== 0) return []; // zlib1g may be absent; ldd below catches what is really needed
  return listed.stdout.split('\n').filter((path) => path.startsWith('/'));
}

/** The shared libraries a binary loads, as ldd resolves them on this machine. */
function linkedLibraries(binary: string): string[] {
  const out = spawnSync('ldd', [binary], { encoding: 'utf8' }).stdout ?? '';
  return [...out.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((match) => match[1]!);
}

function nativeBinaries(): string[] {
  const found: string[] = [join(runtimeDir, 'node24/node_modules/node/bin/node')];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.node') && path.includes('linux-x64') && !path.includes('musl')) found.push(path);
    }
  };
  walk(join(runtimeDir, 'openclaw/node_modules'));
  return found;
}

/** The path with its directory resolved (usrmerge: /lib/x → /usr/lib/x), the file itself kept as is (a link stays a link). */
function canonical(path: string): string | null {
  try {
    const resolved = join(realpathSync(dirname(path)), basename(path));
    // Directories come with their files; the top-level links (/bin → usr/bin) are made below.
    return dirname(resolved) === '/' || lstatSync(resolved).isDirectory() ? null : resolved;
  } catch {
    return null;
  }
}

/** Every file of the base, each library's link chain included. */
function baseFileList(): string[] {
  const wanted = new Set<string>();
  const add = (path: string): void => {
    const file = canonical(path);
    if (file === null || SKIPPED.test(file) || wanted.has(file)) return;
    wanted.add(file);
    if (lstatSync(file).isSymbolicLink()) add(resolve(dirname(file), readlinkSync(file)));
  };
  for (const pkg of PACKAGES) packageFiles(pkg).forEach(add);
  // The packages' own programs (coreutils needs libselinux, libacl …) and the runtime's natives.
  const programs = [...wanted].filter((file) => /\/s?bin\//.test(file) && lstatSync(file).isFile());
  for (const binary of [...programs, ...nativeBinaries()]) linkedLibraries(binary).forEach(add);
  for (const entry of readdirSync('/etc/ssl/certs')) add(join('/etc/ssl/certs', entry));
  return [...wanted].sort();
}

/** Hash of the recipe and every file's path, size and mtime (not the bytes: a package upgrade changes them). */
function baseContentKey(files: string[]): string {
  const hash = createHash('sha256').update(RECIPE);
  for (const file of files) {
    const stat = lstatSync(file);
    hash.update(`\n${file}\t${stat.size}\t${Math.trunc(stat.mtimeMs)}`);
  }
  return hash.digest('hex');
}

function imageLabel(image: string, label: string): string | null {
  const inspected = spawnSync('docker', ['image', 'inspect', '--format', `{{ index .Config.Labels "${label}" }}`, image], { encoding: 'utf8' });
  return inspected.status === 0 ? inspected.stdout.trim() : null;
}

/** Makes `occ-local-base:bookworm` unless an image of that tag was made from the same files. */
export function ensureLocalBaseImage(tag = LOCAL_BASE_IMAGE): { tag: string; built: boolean; ms: number } {
  const started = Date.now();
  const files = baseFileList();
  const key = baseContentKey(files);
  if (imageLabel(tag, BASE_CONTENT_LABEL) === key) return { tag, built: false, ms: Date.now() - started };
  const previous = spawnSync('docker', ['image', 'inspect', '--format', '{{.Id}}', tag], { encoding: 'utf8' }).stdout?.trim();

  const stage = mkdtempSync(join(tmpdir(), 'occ-base-'));
  try {
    const root = join(stage, 'root');
    mkdirSync(root);
    const list = join(stage, 'files');
    writeFileSync(list, `${files.map((file) => file.slice(1)).join('\n')}\n`);
    execFileSync('sh', ['-c', 'tar -C / --no-recursion -cf - -T "$1" | tar -C "$2" -xf -', 'sh', list, root]);
    // usrmerge as on this machine, so /bin/sh, /lib64/ld-linux-x86-64.so.2 … resolve.
    for (const link of ['bin', 'lib', 'lib64', 'sbin']) symlinkSync(`usr/${link}`, join(root, link));
    mkdirSync(join(root, 'tmp'), { mode: 0o1777 });
    execFileSync('chmod', ['1777', join(root, 'tmp')]);
    mkdirSync(join(root, 'etc'), { recursive: true });
    writeFileSync(join(root, 'etc/nsswitch.conf'), 'passwd: files\ngroup: files\nhosts: files dns\n');
    writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
    writeFileSync(join(root, 'etc/group'), 'root:x:0:\n');
    execFileSync(
      'sh',
      [
        '-c',
        'tar -C "$1" --numeric-owner -cf - . | docker import --change "$2" --change "$3" - "$4"',
        'sh',
        root,
        `LABEL ${BASE_CONTENT_LABEL}=${key}`,
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        tag,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    // The outdated base would stay behind untagged; remove it (ignored if a container still uses it).
    if (previous) spawnSync('docker', ['image', 'rm', previous], { stdio: 'ignore' });
    return { tag, built: true, ms: Date.now() - started };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
