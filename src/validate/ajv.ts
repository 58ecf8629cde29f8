/**
 * The ajv instances that judge tool schemas, strict, with formats: one per dialect and kind (inputs are compiled
 * with useDefaults, outputs without). Schemas are compiled once, here, with their source kept: generate turns the
 * same compiled validators into standalone code instead of compiling again. Strict-mode warnings that ajv would
 * print are captured, so they become diagnostics with positions.
 */
import Ajv, { _, type Options, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { guardInherited, inheritedNames, renameInherited } from './inherited.js';
import type { Dialect } from './keywords.js';

export type AnyAjv = InstanceType<typeof Ajv.default>;
export type SchemaKind = 'input' | 'output';

let captured: string[] | undefined;

const logger = {
  log: () => {},
  warn: (...args: unknown[]) => captured?.push(args.map(String).join(' ')),
  error: (...args: unknown[]) => captured?.push(args.map(String).join(' ')),
};

/**
 * What the generated validators do, wherever they are compiled. Arguments named like inherited members
 * (`constructor`, `toString`, …) are handled by renaming (inherited.ts), which is all JSON data needs; ajv's
 * `ownProperties` would cost every call on every schema (measured ~1.5 µs on the benchmark's calls) for nothing more.
 */
export const VALIDATION_OPTIONS = {
  allowUnionTypes: true,
  allErrors: true,
  code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` },
} as const satisfies Options;

function options(kind: SchemaKind): Options {
  return {
    ...VALIDATION_OPTIONS,
    strict: true,
    // Unknown keywords and formats are found before ajv sees a schema; what is left here (e.g. a default where
    // it cannot be applied) is worth a warning, not a refusal.
    strictSchema: 'log',
    strictTypes: 'log',
    strictTuples: false,
    strictRequired: 'log',
    useDefaults: kind === 'input',
    // The meta-schema is checked explicitly first, with positions; compile need not check it again.
    validateSchema: false,
    logger,
  };
}

/** A compiled schema: its instance (for standalone code) and the key it was added under. */
export interface Compiled {
  ajv: AnyAjv;
  key: string;
  /** Guarded when the schema uses inherited property names (see inherited.ts). */
  validate: ValidateFunction;
  /** Property names the schema shares with Object.prototype: the generated validator needs guardInherited. */
  inherited: string[];
}

/** The instances of one load: created per load, so that nothing compiled outlives the model it belongs to. */
export class AjvSet {
  readonly #instances = new Map<string, AnyAjv>();
  #next = 0;

  get(dialect: Dialect, kind: SchemaKind): AnyAjv {
    const id = `${dialect}:${kind}`;
    let ajv = this.#instances.get(id);
    if (!ajv) {
      ajv = dialect === '2020-12' ? new Ajv2020.default(options(kind)) : new Ajv.default(options(kind));
      addFormats.default(ajv);
      // ajv resolves "#name" refs to $anchor itself, but its strict mode calls the keyword unknown.
      if (dialect === '2020-12') ajv.addKeyword({ keyword: '$anchor', schemaType: 'string' });
      this.#instances.set(id, ajv);
    }
    return ajv;
  }

  /** Adds and compiles a schema under a key of its own; returns the warnings ajv logged meanwhile. */
  compile(ajv: AnyAjv, schema: object): { compiled: Compiled; warnings: string[] } {
    const key = `toolspec:${this.#next++}`;
    const inherited = inheritedNames(schema);
    const { result, warnings } = captureWarnings(() => {
      ajv.addSchema(inherited.length ? (renameInherited(schema, new Set(inherited)) as object) : schema, key);
      return ajv.getSchema(key)!;
    });
    const validate = inherited.length ? guardInherited(result, inherited) : result;
    return { compiled: { ajv, key, validate, inherited }, warnings };
  }
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

/** Compiled validators by the schema model they belong to (generate reads them; the model stays plain data). */
export const compiledSchemas = new WeakMap<object, Compiled>();
