import { isJsonObject } from '@occ/contracts';
import { PluginDiscoveryError } from '../../../core/ports/plugin-driver.ts';

/** Small readers for upstream JSON: a wrong shape is `invalid_response`, never upstream text. */

export type WireRecord = Record<string, unknown>;

export function invalid(): never {
  throw new PluginDiscoveryError('invalid_response');
}

export function record(value: unknown): WireRecord {
  return isJsonObject(value) ? value : invalid();
}

export function string(value: unknown): string {
  return typeof value === 'string' ? value : invalid();
}

/** An optional field: absent or null is undefined; any other non-string is a wrong shape. */
export function optionalString(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : string(value);
}

export function optionalBoolean(value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'boolean' ? value : invalid();
}

/** An optional list, capped: more than `max` items is a wrong shape. */
export function optionalArray(value: unknown, max: number): unknown[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length > max) return invalid();
  return value;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** An identifier-like value: non-empty, bounded, no control characters. */
export function identifier(value: unknown, max: number): string {
  const text = string(value);
  return text.length > 0 && text.length <= max && !CONTROL.test(text) ? text : invalid();
}

/** Display text: trimmed, control characters become spaces, cut to `max`; empty is undefined. */
export function displayText(value: unknown, max: number): string | undefined {
  const text = optionalString(value)?.replace(new RegExp(CONTROL.source, 'gu'), ' ').trim();
  if (!text) return undefined;
  const cut = text.slice(0, max);
  return /[\ud800-\udbff]$/u.test(cut) ? cut.slice(0, -1) : cut;
}
