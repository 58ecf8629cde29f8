/**
 * ajv, in one place: one options factory for every instance toolspec makes. Two kinds of instance exist:
 *
 * - **export** instances, one per tool schema, fresh: the schema (annotations left out) is compiled there and its
 *   standalone code taken at once, so the code of one schema depends on that schema alone — never on which schemas
 *   were compiled before it, nor on later scratch compiles. The code is the loader's artefact that generate emits.
 * - **judge** instances, one per dialect and kind per load: the meta-schema check and scratch compiles (defaults,
 *   example expectations), none of which reach the generated code.
 *
 * Strict-mode warnings that ajv would print are captured, so they become diagnostics with positions.
 */
import { createRequire } from 'node:module';
import type Ajv from 'ajv';
import type { Options } from 'ajv';
import type Ajv2020 from 'ajv/dist/2020.js';
import type standaloneCode from 'ajv/dist/standalone/index.js';
import type addFormats from 'ajv-formats';
import type { SchemaKind } from '../model.js';
import { guardInherited, inheritedNames, renameInherited } from './inherited.js';
import { linearPatterns } from './regex.js';
import { ANNOTATION_KEYWORDS, isObject, mapChildren, type Dialect } from '../schema/keywords.js';

export type AnyAjv = InstanceType<typeof Ajv.default>;

/**
 * ajv's modules (CommonJS), required when a schema is first compiled rather than imported with this module: a
 * generate whose verdicts are all kept compiles nothing, and loading ajv is ~80 ms of such a run.
 */
export const ajvModules = () => {
  const require = createRequire(import.meta.url);
  return {
    Ajv: require('ajv') as typeof Ajv,
    Ajv2020: require('ajv/dist/2020.js') as typeof Ajv2020,
    standaloneCode: require('ajv/dist/standalone/index.js') as typeof standaloneCode,
    addFormats: require('ajv-formats') as typeof addFormats,
  };
};

let captured: string[] | undefined;

const capture = (...args: unknown[]) => captured?.push(args.map(String).join(' '));
const logger = { log: () => {}, warn: capture, error: capture };

/**
 * A judge instance ('judge': the meta-schema check and scratch compiles) or an export instance (one schema's code).
 * Every instance's options are set here, so what the generated validators do is decided in one place, for the
 * loader's checks and the emitted code alike. Arguments named like inherited members (`constructor`, `toString`,
 * …) are handled by renaming (inherited.ts), which is all JSON data needs; ajv's `ownProperties` would cost every
 * call on every schema (measured ~1.5 µs on the benchmark's calls) for nothing more.
 */
export function newAjv(dialect: Dialect, kind: SchemaKind, purpose: 'judge' | 'export'): AnyAjv {
  const { Ajv, Ajv2020, addFormats } = ajvModules();
  const options: Options = {
    allowUnionTypes: true,
    allErrors: true,
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
    ...(purpose === 'export'
      ? // No meta-schemas (a judge instance checks against them); code kept for standalone output, a statement a line.
        {
          meta: false,
          code: { source: true, lines: true, formats: Ajv._`require("ajv-formats/dist/formats").fullFormats` },
        }
      : {}),
  };
  const ajv = dialect === '2020-12' ? new Ajv2020.default(options) : new Ajv.default(options);
  addFormats.default(ajv);
  // ajv resolves "#name" refs to $anchor itself, but its strict mode calls the keyword unknown.
  if (dialect === '2020-12') ajv.addKeyword({ keyword: '$anchor', schemaType: 'string' });
  return ajv;
}

export const KEY = 'toolspec';

/** What compiling a schema for export gives as data: plain JSON, its code and what ajv logged (strict-mode warnings). */
export type CompiledCode = ReturnType<typeof compileSchema>['code'];

/**
 * A schema compiled for export from its code (computed here or kept from an earlier run): the validator and the
 * instance behind it are compiled again only when something asks for them (a tool's examples), in this process.
 */
export function compiledSchema(
  schema: Record<string, unknown>,
  dialect: Dialect,
  kind: SchemaKind,
  code: CompiledCode,
) {
  let live: ReturnType<typeof compileSchema> | undefined;
  return {
    code: { source: code.source, inherited: code.inherited },
    get ajv() {
      return (live ??= compileSchema(schema, dialect, kind)).ajv;
    },
    get validate() {
      return (live ??= compileSchema(schema, dialect, kind)).validate;
    },
  };
}

/**
 * Compiles `schema` ($schema and $id already left out), annotations left out, in an instance of its own (which holds
 * it as KEY, for scratch compiles of fragments after the code was taken) and takes its standalone code: a function of
 * the schema without annotations, the dialect and the kind.
 */
export function compileSchema(schema: Record<string, unknown>, dialect: Dialect, kind: SchemaKind) {
  const bare = withoutAnnotations(schema) as Record<string, unknown>;
  const ajv = newAjv(dialect, kind, 'export');
  const inherited = inheritedNames(bare);
  const { result, warnings } = captureWarnings(() => {
    ajv.addSchema(inherited.length ? (renameInherited(bare, new Set(inherited)) as object) : bare, KEY);
    return ajv.getSchema(KEY)!;
  });
  // Patterns run on the linear-time matcher where they can (regex.ts): no argument makes validation backtrack.
  const source = linearPatterns(ajvModules().standaloneCode.default(ajv, result));
  // Guarded when the schema uses inherited property names (see inherited.ts).
  const validate = inherited.length ? guardInherited(result, inherited, false) : result;
  return { ajv, validate, code: { source, inherited, warnings } };
}

/**
 * The schema without annotations and extension keywords (x-…), in every subschema; values (const, enum, default)
 * kept whole. The generated code leaves them out, so editing one changes no validator.
 */
export function withoutAnnotations(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const kept = Object.fromEntries(
    Object.entries(schema).filter(([k]) => !ANNOTATION_KEYWORDS.has(k) && !k.startsWith('x-')),
  );
  return mapChildren(kept, withoutAnnotations);
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
