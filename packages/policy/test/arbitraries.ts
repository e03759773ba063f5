import fc from 'fast-check';
import {
  APPROVAL_MODES,
  REVIEWERS,
  type Approver,
  type PluginMap,
  type PluginPolicyCapabilities,
  type PluginSelection,
} from '@occ/contracts';
import type { PluginPolicyRules } from '../src/index.ts';

/** Small pools so duplicates, aliases and escaping-worthy characters come up often. */
export const approverArb: fc.Arbitrary<Approver> = fc.record({
  channel: fc.constantFrom('slack', 'teams', 'e-mail'),
  id: fc.constantFrom('U1', 'U2', 'W/3', 'team:T1:user:U1', '~0'),
});
const approverListArb = fc.array(approverArb, { maxLength: 4 });
const uniqueApproversArb = fc.uniqueArray(approverArb, { selector: (a) => `${a.channel}\n${a.id}`, maxLength: 4 });

const toolIdArb = fc.oneof(
  fc.constantFrom('diffs', 'a/b', '~1', 'x~y/z', 'app%2F1/tool'),
  fc.stringMatching(/^[!-~]{1,12}$/),
);
const pluginKeyArb = fc.oneof(
  fc.constantFrom('diffs', 'openclaw:diffs', '@scope/pkg', 'openclaw:@scope/pkg', 'a~b', 'a/b/c'),
  fc.constantFrom('linear@openai-curated-remote', 'codex:linear@openai-curated-remote', 'codex:', 'Bad@Market'),
  fc.stringMatching(/^[A-Za-z0-9._~:@/-]{1,16}$/),
);

const nonEmpty = <T extends object>(value: T) => Object.keys(value).length > 0;

/** Shape-valid maps using the whole vocabulary, valid or not for a given driver. */
export const anyPluginMapArb: fc.Arbitrary<PluginMap> = fc.dictionary(
  pluginKeyArb,
  fc.record(
    {
      enabled: fc.boolean(),
      approvers: approverListArb,
      toolDefaults: fc
        .record(
          { enabled: fc.boolean(), approval: fc.constantFrom(...APPROVAL_MODES), reviewer: fc.constantFrom(...REVIEWERS) },
          { requiredKeys: [] },
        )
        .filter(nonEmpty),
      tools: fc.dictionary(
        toolIdArb,
        fc
          .record(
            {
              enabled: fc.boolean(),
              approval: fc.constantFrom(...APPROVAL_MODES),
              reviewer: fc.constantFrom(...REVIEWERS),
              approvers: approverListArb,
            },
            { requiredKeys: [] },
          )
          .filter(nonEmpty),
        { maxKeys: 3 },
      ),
      driverPolicy: fc.dictionary(
        fc.constantFrom('destructiveEnabled', 'other', 'a/b', '~x'),
        fc.oneof(fc.boolean(), fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null)),
        { maxKeys: 2 },
      ),
    },
    { requiredKeys: ['enabled'] },
  ),
  { maxKeys: 5 },
);

export const anyAgentApproversArb = fc.option(approverListArb, { nil: undefined });

const npmNameArb = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,10}$/);
const selectionKeyArbByDriver: Record<PluginPolicyRules['driverId'], fc.Arbitrary<string>> = {
  'openclaw-curated': fc
    .tuple(fc.boolean(), fc.option(npmNameArb, { nil: undefined }), npmNameArb)
    .map(([prefixed, scope, name]) => `${prefixed ? 'openclaw:' : ''}${scope ? `@${scope}/` : ''}${name}`),
  'codex-hosted': fc
    .tuple(fc.boolean(), fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9._-]{0,10}$/), fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,10}$/))
    .map(([prefixed, slug, marketplace]) => `${prefixed ? 'codex:' : ''}${slug}@${marketplace}`),
};

/** Only what `capabilities` advertises: a control whose scope list is empty is never generated. */
function capabilitySelectionArb(capabilities: PluginPolicyCapabilities): fc.Arbitrary<PluginSelection> {
  const controls = (scope: 'toolDefaults' | 'tools') => ({
    enabled: fc.boolean(),
    ...(capabilities.approval[scope].length > 0 && { approval: fc.constantFrom(...capabilities.approval[scope]) }),
    ...(capabilities.reviewer[scope].length > 0 && { reviewer: fc.constantFrom(...capabilities.reviewer[scope]) }),
  });
  const schemaProperties = (capabilities.driverPolicySchema.properties ?? {}) as Record<string, { type?: string }>;
  const booleanFields = Object.keys(schemaProperties).filter((field) => schemaProperties[field]?.type === 'boolean');
  return fc
    .record(
      {
        enabled: fc.boolean(),
        ...(capabilities.approvers.plugin && { approvers: uniqueApproversArb }),
        toolDefaults: fc.record(controls('toolDefaults'), { requiredKeys: [] }).filter(nonEmpty),
        tools: fc.dictionary(
          toolIdArb,
          fc
            .record(
              { ...controls('tools'), ...(capabilities.approvers.tool && { approvers: uniqueApproversArb }) },
              { requiredKeys: [] },
            )
            .filter(nonEmpty),
          { maxKeys: 3 },
        ),
        // A schema without properties leaves nothing worth saying, so the field is left out.
        ...(booleanFields.length > 0 && {
          driverPolicy: fc.record(Object.fromEntries(booleanFields.map((field) => [field, fc.boolean()])), {
            requiredKeys: [],
          }),
        }),
      },
      { requiredKeys: ['enabled'] },
    )
    .map(dropUnadvertisableCombination);
}

/** Cross-field rules cannot be expressed in capabilities; this is the one documented combination. */
function dropUnadvertisableCombination(selection: PluginSelection): PluginSelection {
  const { toolDefaults, driverPolicy } = selection;
  if (toolDefaults?.enabled === undefined || driverPolicy === undefined || !('destructiveEnabled' in driverPolicy)) {
    return selection;
  }
  const { enabled: _dropped, ...rest } = toolDefaults;
  return Object.keys(rest).length > 0 ? { ...selection, toolDefaults: rest } : omitToolDefaults(selection);
}

function omitToolDefaults({ toolDefaults: _dropped, ...selection }: PluginSelection): PluginSelection {
  return selection;
}

export function capabilityBodyArb(rules: PluginPolicyRules) {
  const keys = fc.uniqueArray(selectionKeyArbByDriver[rules.driverId], { selector: rules.nativePluginId, maxLength: 4 });
  return fc.record({
    plugins: keys.chain((unique) =>
      fc.tuple(...unique.map(() => capabilitySelectionArb(rules.capabilities))).map((selections) =>
        Object.fromEntries(unique.map((key, index) => [key, selections[index]!])),
      ),
    ),
    pluginApprovers: rules.capabilities.approvers.agent ? fc.option(uniqueApproversArb, { nil: undefined }) : fc.constant(undefined),
  });
}
