import { Type, type Static } from '@sinclair/typebox';
import { Closed } from '../common.ts';

/** Bounds of `GET …/deployments/:rev/runtime/logs`. */
export const RUNTIME_LOG_TAIL_DEFAULT = 100;
export const RUNTIME_LOG_TAIL_MAX = 1000;

export const RuntimeLogsQuerySchema = Closed({
  /** How many of the last lines (1–1000, default 100). */
  tail: Type.Optional(Type.Integer({ minimum: 1, maximum: RUNTIME_LOG_TAIL_MAX })),
});

/**
 * The last lines of a revision's runtime log, oldest first. The driver bounds the read (local:
 * the last 256 KiB of the file, each line cut to 4 KiB); `truncated` says earlier lines exist
 * that were not returned, or a line was cut.
 */
export const RuntimeLogsSchema = Closed({
  lines: Type.Array(Type.String(), { maxItems: RUNTIME_LOG_TAIL_MAX }),
  truncated: Type.Boolean(),
});
export type RuntimeLogsResponse = Static<typeof RuntimeLogsSchema>;
