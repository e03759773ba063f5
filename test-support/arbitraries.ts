import fc from 'fast-check';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import {
  ACTIONS,
  APPROVAL_MODES,
  APPROVER_CHANNEL_PATTERN,
  ENV_NAME_PATTERN,
  NameSchema,
  RESOURCE_KINDS,
  REVIEWERS,
  TOOL_ID_PATTERN,
  isJsonObject,
  type Approver,
  type PluginMap,
  type PluginSelection,
} from '@occ/contracts';
import { escapePointerSegment, openclawCuratedCatalog } from '@occ/policy';
import type { World } from './world.ts';

/** A request body exactly as sent: the raw JSON text and (when parseable) its value. */
export interface SentBody {
  raw: string;
  parsed: unknown;
  /** A detail the answer must contain, when the mutation makes it certain. */
  expect?: { path: string; code: string };
  label: string;
}

/** fast-check prints counterexamples; a 20,000-deep `parsed` would overflow its printer, so print the text. */
function printable(body: SentBody): SentBody {
  return Object.defineProperty(body, fc.toStringMethod, { value: () => `${body.label}: ${body.raw.slice(0, 500)}`, enumerable: false });
}

export const sent = (value: unknown, label: string, expect?: SentBody['expect']): SentBody => {
  const raw = JSON.stringify(value);
  return printable({ raw, parsed: JSON.parse(raw), label, ...(expect ? { expect } : {}) });
};

/**
 * Valid bodies leave out what the API refuses on purpose as prototype poisoning (Fastify's secure
 * JSON parsing: a `__proto__` key, or a `constructor` object with a `prototype` key — both 400,
 * http-edges.test.ts).
 */
const poisoning = (v: unknown): boolean =>
  typeof v === 'object' &&
  v !== null &&
  (Array.isArray(v)
    ? v.some(poisoning)
    : Object.entries(v).some(
        ([key, inner]) => key === '__proto__' || (key === 'constructor' && typeof inner === 'object' && inner !== null && Object.hasOwn(inner, 'prototype')) || poisoning(inner),
      ));
const noProto = (v: unknown) => !poisoning(JSON.parse(JSON.stringify(v ?? null)));
const matches = (pattern: string) => (s: string) => new RegExp(pattern).test(s);

/** Keys that need JSON-pointer escaping, unicode, emptiness: everything a map key can be. */
const oddKeyArb = fc
  .oneof(
    fc.constantFrom('', '/', '~', '~0', '~1', 'a/b', 'a~b', '~01', 'ü', 'naïve', '💥', ' ', '\u2028', 'x'.repeat(300), 'constructor'),
    fc.string({ unit: 'grapheme', maxLength: 12 }),
  )
  .filter((k) => k !== '__proto__');

/** Strings that break naive storage: NUL, lone surrogates, bidi marks, huge. */
const nastyStringArb = fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\u202e', '💥', 'x'.repeat(70_000), '{"a":1}', '../..');

const anyValueArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2, stringUnit: 'binary' }),
  nastyStringArb,
  fc.constantFrom(null, true, 0, -1, 1.5, 1e308, [], {}, [null], { a: {} }),
);

/** Deeply nested arrays/objects, built as text (too deep for a recursive JSON.stringify). */
function deepBodyArb(keys: readonly string[]): fc.Arbitrary<SentBody> {
  return fc.record({ depth: fc.integer({ min: 1, max: 20_000 }), obj: fc.boolean(), key: fc.constantFrom(...(keys.length ? keys : ['x'])) }).map(({ depth, obj, key }) => {
    const inner = obj ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth);
    const raw = `{${JSON.stringify(key)}:${inner}}`;
    return printable({ raw, parsed: JSON.parse(raw), label: `deep ${obj ? 'object' : 'array'} ${depth} under ${key}` });
  });
}

/** Arbitrary JSON aimed at a body schema: any JSON, random keys, its own keys with wrong values, depth, size. */
export function garbageBodyArb(keys: readonly string[]): fc.Arbitrary<SentBody> {
  const ownKeys = keys.length ? keys : ['x'];
  return fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map((v) => sent(v, 'json value')),
    fc.dictionary(oddKeyArb, anyValueArb, { maxKeys: 5 }).map((v) => sent(v, 'random keys')),
    fc.dictionary(fc.constantFrom(...ownKeys), anyValueArb, { maxKeys: ownKeys.length }).map((v) => sent(v, 'own keys, any values')),
    fc
      .record({ key: fc.constantFrom(...ownKeys), size: fc.integer({ min: 1_000, max: 900_000 }) })
      .map(({ key, size }) => sent({ [key]: 'x'.repeat(size) }, `huge string ${size}`)),
    deepBodyArb(ownKeys),
  );
}

// ---- The schema vocabulary: valid values -------------------------------------------------

/** Names as NameSchema allows them: unicode, inner spaces, no control characters, no edge whitespace. */
export const nameArb = fc
  .oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
    fc.constantFrom('a', 'x'.repeat(200), 'a b', 'ü/~', '💥 name'),
  )
  .filter((s) => Value.Check(NameSchema, s));

let seq = 0;
/** A valid name made unique (for round-trips) without leaving the NameSchema vocabulary. */
const uniqueNameArb = nameArb.map((n) => `${Array.from(n).slice(0, 150).join('')}-${process.pid}-${++seq}`).filter((s) => Value.Check(NameSchema, s));

/** Secret values: any unicode text without NUL (surrogate pairs intact), short or long. */
export const secretValueArb = fc
  .oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 50 }),
    fc.constantFrom('v', ' ', '\n', 'x'.repeat(65_536)),
  )
  .filter((s) => s.length > 0 && s.length <= 65_536 && !s.includes('\u0000'));

/** Native OpenClaw configuration: arbitrary JSON objects (no `__proto__`, refused by the JSON parser). */
export const configValuesArb = fc.dictionary(oddKeyArb, fc.jsonValue({ maxDepth: 3, stringUnit: 'grapheme' }), { maxKeys: 6 }).filter(noProto);

/** The same with every code point allowed (NUL, lone surrogates): the server must answer 2xx or 400, never 5xx. */
export const anyConfigValuesArb = fc
  .dictionary(
    fc.oneof(
      oddKeyArb,
      nastyStringArb.filter((s) => s.length < 100),
    ),
    fc.oneof(fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }), nastyStringArb),
    { maxKeys: 6 },
  )
  .filter(noProto);

const approverIdArb = fc
  .oneof(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }), fc.constantFrom('U1', 'W/3', '~0', 'team:T1:user:U1'))
  .filter((s) => s.length <= 256 && /^[^\u0000-\u001f\u007f]+$/.test(s));
export const approverArb: fc.Arbitrary<Approver> = fc.record({
  channel: fc.oneof(fc.constantFrom('slack', 'teams', 'e-mail'), fc.stringMatching(new RegExp(APPROVER_CHANNEL_PATTERN))),
  id: approverIdArb,
});
export const approversArb = fc.uniqueArray(approverArb, { selector: (a) => JSON.stringify([a.channel, a.id]), maxLength: 4 });

/** Tool ids: opaque, may hold `/`, `~`, `%`, unicode. */
const toolIdArb = fc
  .oneof(fc.constantFrom('diffs', 'a/b', '~1', 'x~y/z', 'app%2F1/tool', 'ü', '💥'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }))
  .filter((s) => matches(TOOL_ID_PATTERN)(s) && s !== '__proto__');

const npmName = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,10}$/);
const openclawKeyArb = fc
  .tuple(fc.boolean(), fc.option(npmName, { nil: undefined }), npmName)
  .map(([prefixed, scope, name]) => `${prefixed ? 'openclaw:' : ''}${scope ? `@${scope}/` : ''}${name}`);
/** Keys the curated catalog offers (with or without the prefix): the only OpenClaw keys an Agent saves with. */
const catalogKeyArb = fc
  .tuple(fc.boolean(), fc.constantFrom(...openclawCuratedCatalog().plugins.map((plugin) => plugin.id)))
  .map(([prefixed, id]) => `${prefixed ? 'openclaw:' : ''}${id}`);
const codexKeyArb = fc
  .tuple(fc.boolean(), fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9._-]{0,10}$/), fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,10}$/))
  .map(([prefixed, slug, market]) => `${prefixed ? 'codex:' : ''}${slug}@${market}`);
const nonEmpty = (o: object) => Object.keys(o).length > 0;

function selectionArb(harness: 'openclaw' | 'codex'): fc.Arbitrary<PluginSelection> {
  const codex = harness === 'codex';
  const approval = fc.constantFrom(...(codex ? APPROVAL_MODES : (['provider_default', 'none'] as const)));
  const toolDefaults = fc.record({ enabled: fc.boolean(), approval, ...(codex ? { reviewer: fc.constantFrom(...REVIEWERS) } : {}) }, { requiredKeys: [] }).filter(nonEmpty);
  const tool = fc.record({ enabled: fc.boolean(), approval, ...(codex ? {} : { approvers: approversArb }) }, { requiredKeys: [] }).filter(nonEmpty);
  return fc
    .record(
      {
        enabled: fc.boolean(),
        ...(codex ? {} : { approvers: approversArb }),
        toolDefaults,
        tools: fc.dictionary(toolIdArb, tool, { maxKeys: 3 }),
        ...(codex ? { driverPolicy: fc.record({ destructiveEnabled: fc.boolean() }, { requiredKeys: [] }) } : {}),
      },
      { requiredKeys: ['enabled'] },
    )
    .map((s) => {
      // The one cross-field rule: toolDefaults.enabled cannot be combined with destructiveEnabled.
      if (s.toolDefaults?.enabled === undefined || s.driverPolicy?.destructiveEnabled === undefined) return s;
      const { driverPolicy: _dropped, ...rest } = s;
      return rest;
    });
}

/** Plugin maps the harness's driver accepts (one key per native plugin; OpenClaw keys its catalog offers). */
export function validPluginMapArb(harness: 'openclaw' | 'codex'): fc.Arbitrary<PluginMap> {
  const native = (k: string) => k.replace(/^(openclaw|codex):/, '');
  return fc
    .uniqueArray(harness === 'codex' ? codexKeyArb : catalogKeyArb, { selector: native, maxLength: 4 })
    .chain((keys) => fc.tuple(...keys.map(() => selectionArb(harness))).map((sel) => Object.fromEntries(keys.map((k, i) => [k, sel[i]!]))));
}

/** Plugin maps over the whole vocabulary, odd keys included: shape-valid or not, driver-valid or not. */
export const anyPluginMapArb: fc.Arbitrary<unknown> = fc.dictionary(
  fc.oneof(openclawKeyArb, catalogKeyArb, codexKeyArb, oddKeyArb, fc.constantFrom('a/b/c', 'a~b', 'codex:', 'Bad@Market', 'diffs', 'openclaw:diffs')),
  fc.oneof(selectionArb('openclaw'), selectionArb('codex'), anyValueArb, fc.record({ enabled: fc.boolean(), toolDefaults: fc.dictionary(oddKeyArb, anyValueArb, { maxKeys: 2 }) })),
  { maxKeys: 5 },
);

const envNameArb = fc.stringMatching(new RegExp(ENV_NAME_PATTERN)).filter((s) => s.length <= 128);
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
const atLeastOne = (o: Record<string, unknown>) => Object.keys(o).length > 0;

const catalogQueryArb = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', 'i', 'lin', 'ü', 'x'.repeat(1024)));
const catalogCursorArb = fc.constantFrom('spy:2:', 'opaque-cursor', 'x'.repeat(8192));
const catalogPluginIdArb = fc.oneof(fc.constantFrom('plugin_diffs', 'linear', 'no-such-plugin'), fc.string({ minLength: 1, maxLength: 40 }));
const createTimeCredentialArb = (w: World): fc.Arbitrary<Record<string, unknown>> =>
  fc.oneof(
    fc.constant({ harness: 'openclaw' }),
    fc.string({ minLength: 1, maxLength: 64 }).map((accessToken) => ({ harness: 'codex', accessToken })),
    fc.constant({ harness: 'codex', secretRef: { kind: 'secret', namespaceId: w.nsA, id: w.secretA } }),
  );

/**
 * Valid bodies for every body route, aimed at the fixture's target resources. A body route
 * without an entry here fails the property tests.
 */
export const VALID_BODIES: Readonly<Record<string, (w: World) => fc.Arbitrary<Record<string, unknown>>>> = {
  createNamespace: () => fc.record({ name: uniqueNameArb }),
  createSecret: () => fc.record({ name: uniqueNameArb, value: secretValueArb }),
  updateSecret: () => fc.record({ value: secretValueArb }),
  createConfiguration: (w) =>
    fc
      .record({
        name: uniqueNameArb,
        values: configValuesArb,
        secretBindings: optional(fc.dictionary(envNameArb, fc.record({ secretId: fc.constantFrom(w.secretA, w.secretA2) }), { maxKeys: 3 })),
      })
      .map(defined),
  updateConfiguration: (w) =>
    fc
      .record({
        name: optional(uniqueNameArb),
        values: optional(configValuesArb),
        secretBindings: optional(fc.dictionary(envNameArb, fc.record({ secretId: fc.constant(w.secretA) }), { maxKeys: 2 })),
      })
      .map(defined)
      .filter(atLeastOne),
  createAgent: (w) =>
    fc.constantFrom('openclaw' as const, 'codex' as const).chain((harness) =>
      fc
        .record({
          name: uniqueNameArb,
          configurationId: fc.constant(w.cfgA),
          harness: fc.constant(harness),
          harnessAuth: harness === 'codex' ? optional(fc.constant({ method: 'codex_pat', secretId: w.secretA })) : fc.constant(undefined),
          plugins: optional(validPluginMapArb(harness)),
          pluginApprovers: optional(approversArb),
        })
        .map(defined),
    ),
  // The fixture's agentA2 runs the openclaw harness.
  updateAgent: (w) =>
    fc
      .record({
        name: optional(uniqueNameArb),
        configurationId: optional(fc.constant(w.cfgA)),
        plugins: optional(validPluginMapArb('openclaw')),
        pluginApprovers: optional(fc.option(approversArb, { nil: null })),
      })
      .map(defined)
      .filter(atLeastOne),
  // Discovery (the test controller's scripted catalogs): openclaw takes no credential, codex exactly one.
  discoverAgentPlugins: (w) =>
    createTimeCredentialArb(w).chain((credential) =>
      fc.record({ q: optional(catalogQueryArb), cursor: optional(catalogCursorArb) }).map((rest) => defined({ ...credential, ...rest })),
    ),
  discoverAgentPluginDetails: (w) => createTimeCredentialArb(w).chain((credential) => catalogPluginIdArb.map((pluginId) => ({ ...credential, pluginId }))),
  discoverExistingAgentPlugins: () => fc.record({ q: optional(catalogQueryArb), cursor: optional(catalogCursorArb) }).map(defined),
  discoverExistingAgentPluginDetails: () => fc.record({ pluginId: catalogPluginIdArb }),
  // Namespace B's host (route-fixtures.ts): the test controller's scripted ComputeDriver takes any host.
  putNamespaceSshHost: (w) =>
    fc.record({
      address: fc.string({ minLength: 1, maxLength: 260 }),
      user: fc.string({ minLength: 1, maxLength: 32 }),
      hostKey: fc.string({ minLength: 1, maxLength: 300 }),
      privateKeySecretId: fc.constant(w.sshKeyB),
    }),
  createPrincipal: () => fc.record({ kind: fc.constantFrom('human', 'service'), name: uniqueNameArb }),
  createApiKey: () => fc.record({ name: nameArb, expiresInDays: optional(fc.integer({ min: 1, max: 365 })) }).map(defined),
  createRole: () =>
    fc.record({
      name: uniqueNameArb,
      permissions: fc.array(fc.record({ action: fc.constantFrom(...ACTIONS), resourceKind: fc.constantFrom(...RESOURCE_KINDS) }), { minLength: 1, maxLength: 64 }),
    }),
  createAccessBinding: (w) => fc.record({ principalId: fc.constant(w.principal), roleId: fc.constant(w.role), namespaceId: optional(fc.constant(w.nsA)) }).map(defined),
  sendAgentMessage: () => fc.record({ text: fc.string({ minLength: 1, maxLength: 200 }), conversation: optional(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/)) }).map(defined),
  // The world's provider (a loopback issuer nothing listens on): saving asks nothing of the provider.
  putSignInProvider: (w) =>
    fc
      .record({
        issuer: fc.constantFrom('https://idp.example.test/realms/corp', 'http://127.0.0.1:9', 'http://[::1]:9/issuer'),
        clientId: fc.string({ minLength: 1, maxLength: 255 }),
        clientSecretId: fc.constant(w.signInSecret),
        publicUrl: fc.constantFrom('http://occ.example.test', 'https://occ.example.com:8443/'),
        scopes: optional(fc.constantFrom(['openid'], ['openid', 'email', 'groups', 'offline_access'])),
        groupsClaim: optional(fc.stringMatching(/^[A-Za-z0-9_:./-]{1,128}$/)),
        refreshIntervalSeconds: optional(fc.integer({ min: 60, max: 3600 })),
      })
      .map(defined),
  createSignInRule: (w) =>
    fc
      .record({
        claim: optional(fc.stringMatching(/^[A-Za-z0-9_:./-]{1,128}$/)),
        value: fc.string({ minLength: 1, maxLength: 256 }),
        roleId: fc.constant(w.role),
        namespaceId: optional(fc.constant(w.nsA)),
      })
      .map(defined),
  // A request id nobody was given: refused (403), never a 5xx.
  pollDeviceSignIn: () => fc.record({ deviceRequestId: fc.stringMatching(/^occd_[A-Za-z0-9_-]{43}$/) }),
  createRestriction: (w) =>
    fc
      .record({
        action: fc.constantFrom(...ACTIONS),
        resourceKind: fc.constantFrom(...RESOURCE_KINDS),
        principalId: optional(fc.constant(w.principal)),
        namespaceId: optional(fc.constant(w.nsA)),
        resourceId: optional(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 64 }).filter((s) => s.length <= 64)),
      })
      .map(defined),
};

// ---- Mutations of a valid body -------------------------------------------------------------

type Path = (string | number)[];

/** Every node below the root (bounded), as raw path segments. */
function nodePaths(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (out.length >= 200 || value === null || typeof value !== 'object') return out;
  for (const [k, v] of Object.entries(value)) {
    const path = [...prefix, Array.isArray(value) ? Number(k) : k];
    out.push(path);
    nodePaths(v, path, out);
  }
  return out;
}

function setAt(root: unknown, path: Path, fn: (parent: any, key: string | number) => void): unknown {
  const copy = structuredClone(root);
  let node: any = copy;
  for (const segment of path.slice(0, -1)) node = node[segment];
  fn(node, path[path.length - 1]!);
  return copy;
}

const objectPaths = (v: unknown) =>
  [[], ...nodePaths(v)].filter((p) => {
    let node: any = v;
    for (const s of p) node = node[s];
    return isJsonObject(node);
  });

const WRONG_TYPES: unknown[] = ['text', 42, 1.5, true, null, [], {}, ['x'], { x: 1 }];

/**
 * Mutations of a valid body: drop a required key, add an unknown key (top level or nested),
 * replace any node by any value, a wrong type, boundary string lengths, a plugin map from the
 * whole vocabulary. Top-level changes carry the detail the answer must contain.
 */
export function mutatedBodyArb(schema: TSchema, validArb: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<SentBody> {
  const props = (schema.properties ?? {}) as Record<string, TSchema>;
  const required = (schema.required ?? []) as string[];
  const bounded = Object.keys(props).filter((k) => typeof props[k]!.maxLength === 'number');
  const strategies: fc.Arbitrary<SentBody>[] = [
    // A __proto__ key anywhere refuses the whole body at the root (see http-edges), not at this key.
    fc
      .tuple(
        validArb,
        oddKeyArb.filter((k) => !Object.hasOwn(props, k) && k !== 'constructor'),
        anyValueArb.filter(noProto),
      )
      .map(([b, k, v]) => sent({ ...b, [k]: v }, `unknown key ${JSON.stringify(k)}`, { path: `/${escapePointerSegment(k)}`, code: 'UNKNOWN_FIELD' })),
    fc.tuple(validArb, fc.nat(), oddKeyArb, anyValueArb).map(([b, i, k, v]) => {
      const paths = objectPaths(b);
      const path = paths[i % paths.length]!;
      return sent(
        setAt(b, [...path, k], (parent, key) => {
          parent[key] = v;
        }),
        `add ${JSON.stringify(k)} at /${path.join('/')}`,
      );
    }),
    fc.tuple(validArb, fc.nat(), fc.oneof(anyValueArb, fc.constantFrom(...WRONG_TYPES))).map(([b, i, v]) => {
      const paths = nodePaths(b);
      if (paths.length === 0) return sent(v, 'replace root');
      const path = paths[i % paths.length]!;
      return sent(
        setAt(b, path, (parent, key) => {
          parent[key] = v;
        }),
        `replace /${path.join('/')}`,
      );
    }),
    fc.tuple(validArb, fc.constantFrom(...Object.keys(props)), fc.constantFrom(...WRONG_TYPES)).map(([b, k, v]) => sent({ ...b, [k]: v }, `wrong type at /${k}`)),
  ];
  if (required.length > 0) {
    strategies.push(
      fc.tuple(validArb, fc.constantFrom(...required)).map(([b, k]) => {
        const { [k]: _dropped, ...rest } = b;
        return sent(rest, `drop ${k}`, { path: `/${escapePointerSegment(k)}`, code: 'REQUIRED' });
      }),
    );
  }
  if (bounded.length > 0) {
    strategies.push(
      fc.tuple(validArb, fc.constantFrom(...bounded), fc.constantFrom('max', 'over', 'empty')).map(([b, k, which]) => {
        const s = props[k]!;
        const length = which === 'max' ? s.maxLength! : which === 'over' ? s.maxLength! + 1 : 0;
        const expect = which === 'over' ? { path: `/${k}`, code: 'TOO_LONG' } : which === 'empty' && (s.minLength ?? 0) > 0 ? { path: `/${k}`, code: 'TOO_SHORT' } : undefined;
        return sent({ ...b, [k]: 'a'.repeat(length) }, `${which} length at /${k}`, expect);
      }),
    );
  }
  if (props.plugins) {
    strategies.push(fc.tuple(validArb, anyPluginMapArb).map(([b, plugins]) => sent({ ...b, plugins }, 'any plugin map')));
  }
  return fc.oneof(...strategies);
}
