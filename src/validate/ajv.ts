/**
 * The ajv instances that judge tool schemas: one per dialect, strict, with formats. Strict-mode warnings that ajv
 * would print are captured instead, so they become diagnostics with positions.
 */
import Ajv, { type Options } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Dialect } from './keywords.js';

type AnyAjv = InstanceType<typeof Ajv.default>;

const instances = new Map<Dialect, AnyAjv>();
let captured: string[] | undefined;

const logger = {
  log: () => {},
  warn: (...args: unknown[]) => captured?.push(args.map(String).join(' ')),
  error: (...args: unknown[]) => captured?.push(args.map(String).join(' ')),
};

export const AJV_OPTIONS: Options = {
  strict: true,
  strictTypes: 'log',
  strictTuples: false,
  strictRequired: 'log',
  allowUnionTypes: true,
  allErrors: true,
  logger,
};

export function getAjv(dialect: Dialect): AnyAjv {
  let ajv = instances.get(dialect);
  if (!ajv) {
    ajv = dialect === '2020-12' ? new Ajv2020.default(AJV_OPTIONS) : new Ajv.default(AJV_OPTIONS);
    addFormats.default(ajv);
    instances.set(dialect, ajv);
  }
  return ajv;
}

/** Runs `fn` and returns what ajv logged meanwhile. */
export function captureWarnings<T>(fn: () => T): { result: T; warnings: string[] } {
  const prev = captured;
  const warnings: string[] = [];
  captured = warnings;
  try {
    return { result: fn(), warnings };
  } finally {
    captured = prev;
  }
}
