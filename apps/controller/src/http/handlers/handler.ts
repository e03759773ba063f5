import type { IncomingHttpHeaders } from 'node:http';
import type { ControllerDeps } from '../../core/deps.ts';
import type { Caller } from '../../core/iam/access.ts';

/** What a handler sees: the request already authenticated, validated and authorized. */
export interface HandlerContext {
  deps: ControllerDeps;
  /** Present on every route that takes an API key. */
  caller: Caller;
  // Shapes are guaranteed by the route's schemas; handlers narrow with the contract types.
  params: any;
  query: any;
  body: any;
  headers: IncomingHttpHeaders;
  /** This API's OpenAPI document. */
  openapi: () => unknown;
  /** Aborted when the client goes away before the answer is sent (provider I/O stops with it). */
  signal: AbortSignal;
}

export interface HandlerResult {
  data?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (ctx: HandlerContext) => Promise<HandlerResult>;
export type HandlerMap = Record<string, Handler>;

export const ok = (data: unknown): HandlerResult => ({ data });
export const none = (): HandlerResult => ({});
