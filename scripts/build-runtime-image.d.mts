// Types of scripts/build-runtime-image.mjs (plain Node, imported by the tests' global setup).
export declare const INPUTS_LABEL: string;
export declare function defaultRuntimeImageTag(): string;
/** Root node_modules directories (relative to the repository) the runtime loads at run time. */
export declare function runtimeDependencyClosure(): string[];
export declare function buildRuntimeImage(options?: { base?: string; tag?: string; quiet?: boolean; noCache?: boolean }): {
  tag: string;
  built: boolean;
  hash: string;
  ms: number;
  /** The toolchain image the runtime image is built FROM (`occ-runtime-toolchain:<key>`), and whether this call built it. */
  toolchain: { tag: string; built: boolean; ms: number };
};
