import { Type, type Static } from '@sinclair/typebox';

/** Selection keys: driver-prefixed or bare native ids, e.g. `openclaw:@scope/name`, `codex:linear@market`. */
export const PLUGIN_ID_PATTERN = '^[A-Za-z0-9._~:@/-]{1,253}$';
/** Tool ids are opaque native identifiers, not display names: no whitespace or control characters. */
export const TOOL_ID_PATTERN = '^[^\\u0000-\\u0020\\u007f]{1,1024}$';
export const APPROVER_CHANNEL_PATTERN = '^[a-z][a-z0-9_-]{0,31}$';
export const APPROVER_ID_PATTERN = '^[^\\u0000-\\u001f\\u007f]+$';

export const APPROVAL_MODES = ['provider_default', 'all_actions', 'write_actions', 'none'] as const;
export const REVIEWERS = ['human', 'auto'] as const;

export const ApprovalModeSchema = Type.Union(APPROVAL_MODES.map((mode) => Type.Literal(mode)));
export const ReviewerSchema = Type.Union(REVIEWERS.map((reviewer) => Type.Literal(reviewer)));

export const ApproverSchema = Type.Object(
  {
    channel: Type.String({ pattern: APPROVER_CHANNEL_PATTERN }),
    id: Type.String({ minLength: 1, maxLength: 256, pattern: APPROVER_ID_PATTERN }),
  },
  { additionalProperties: false },
);

/** `[]` is meaningful: nobody may approve at that scope. */
export const ApproverListSchema = Type.Array(ApproverSchema, { maxItems: 64 });

export const ToolPolicySchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    approval: Type.Optional(ApprovalModeSchema),
    reviewer: Type.Optional(ReviewerSchema),
    approvers: Type.Optional(ApproverListSchema),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ToolDefaultsSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    approval: Type.Optional(ApprovalModeSchema),
    reviewer: Type.Optional(ReviewerSchema),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const PluginSelectionSchema = Type.Object(
  {
    enabled: Type.Boolean(),
    approvers: Type.Optional(ApproverListSchema),
    toolDefaults: Type.Optional(ToolDefaultsSchema),
    tools: Type.Optional(
      Type.Record(Type.String({ pattern: TOOL_ID_PATTERN }), ToolPolicySchema, {
        additionalProperties: false,
        maxProperties: 1000,
      }),
    ),
    // Open here on purpose: each PluginDriver validates its own driverPolicy.
    driverPolicy: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

export const PluginMapSchema = Type.Record(Type.String({ pattern: PLUGIN_ID_PATTERN }), PluginSelectionSchema, {
  additionalProperties: false,
  maxProperties: 200,
});

export type ApprovalMode = Static<typeof ApprovalModeSchema>;
export type Reviewer = Static<typeof ReviewerSchema>;
export type Approver = Static<typeof ApproverSchema>;
export type ToolPolicy = Static<typeof ToolPolicySchema>;
export type ToolDefaults = Static<typeof ToolDefaultsSchema>;
export type PluginSelection = Static<typeof PluginSelectionSchema>;
export type PluginMap = Static<typeof PluginMapSchema>;

const PerScopeApprovalModes = Type.Array(ApprovalModeSchema, { uniqueItems: true });
const PerScopeReviewers = Type.Array(ReviewerSchema, { uniqueItems: true });

/** What one PluginDriver supports; an empty list means that control is unsupported at that scope. */
export const PluginPolicyCapabilitiesSchema = Type.Object(
  {
    driverId: Type.String({ minLength: 1 }),
    harness: Type.Union([Type.Literal('openclaw'), Type.Literal('codex')]),
    approval: Type.Object({ toolDefaults: PerScopeApprovalModes, tools: PerScopeApprovalModes }, { additionalProperties: false }),
    reviewer: Type.Object({ toolDefaults: PerScopeReviewers, tools: PerScopeReviewers }, { additionalProperties: false }),
    approvers: Type.Object({ agent: Type.Boolean(), plugin: Type.Boolean(), tool: Type.Boolean() }, { additionalProperties: false }),
    /** JSON schema of the selection's `driverPolicy`. */
    driverPolicySchema: Type.Record(Type.String(), Type.Unknown()),
  },
  { additionalProperties: false },
);

export type PluginPolicyCapabilities = Static<typeof PluginPolicyCapabilitiesSchema>;

export const POLICY_VIOLATION_CODES = ['UNSUPPORTED_VALUE', 'UNSUPPORTED_FIELD', 'INVALID_COMBINATION', 'DUPLICATE_PLUGIN', 'DUPLICATE_VALUE', 'INVALID_VALUE'] as const;

export type PolicyViolationCode = (typeof POLICY_VIOLATION_CODES)[number];

export interface PolicyViolation {
  /** JSON pointer relative to the Agent body, e.g. `/plugins/my~1plugin/toolDefaults/reviewer`. */
  path: string;
  code: PolicyViolationCode;
  message: string;
}
