/**
 * The costly part of checking a tool schema, as a pure function of plain data: the dialect's meta-schema, ajv's
 * strict compile (its standalone code and warnings) and the defaults checked against their own subschemas. Every
 * other part of a schema's check walks the schema with positions and is cheap; this part is most of a load's time.
 *
 * Being a function of its job alone (the schema as ajv sees it, the schema with its bundled $defs, the dialect, the
 * kind and the extension keywords it carries), its verdict may be kept in the cache by the job's content
 * (verdicts.ts). A verdict is plain JSON, so a kept one gives the same bytes as computing it here.
 */
import type { ErrorObject } from 'ajv';
import type { SchemaKind } from '../model.js';
import { walkSchema, type Dialect, type SchemaPath } from '../schema/keywords.js';
import { newAjv, compileSchema, type AnyAjv, type CompiledCode } from './ajv.js';
import { defaultProblems } from './defaults.js';
import { withValuesRenamed } from './inherited.js';

export interface JudgeJob {
  dialect: Dialect;
  kind: SchemaKind;
  /** The `x-` keywords the schema carries, sorted: the judge instance knows them as keywords. */
  extensions: string[];
  /** The schema as ajv sees it: the bundled schema without `$schema` and `$id`. */
  forAjv: Record<string, unknown>;
  bundled: Record<string, unknown>;
  /** False when the schema must not be compiled (an earlier error, a $ref loop, too large when expanded). */
  compile: boolean;
}

export interface Verdict {
  /** The meta-schema's errors, as ajv gives them. */
  meta: ErrorObject[];
  /** The validator, when the job compiles and the meta-schema holds. */
  compiled?: CompiledCode;
  /** What ajv threw while compiling the schema or its defaults. */
  error?: string;
  /** Defaults their own subschemas reject: index among the schema's defaults (walk order) and why. */
  defaults?: [number, string[]][];
}

/** The places of a schema's defaults, in walk order: what `Verdict.defaults` indexes. */
export function defaultPlaces(bundled: Record<string, unknown>): SchemaPath[] {
  const places: SchemaPath[] = [];
  walkSchema(bundled, (node, path) => {
    if ('default' in node) places.push(path);
  });
  return places;
}

/** The most specific meta-schema error per place (a union type's "anyOf" umbrella says less than its branches). */
export function metaErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const byPath = new Map<string, ErrorObject>();
  for (const e of errors) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === '$dynamicRef') continue;
    const segs = e.instancePath.split('/');
    if (segs.at(-1) === '$ref' || segs.at(-1) === 'type' || segs.at(-2) === 'type') continue;
    if (!byPath.has(e.instancePath)) byPath.set(e.instancePath, e);
  }
  return [...byPath.values()];
}

/** The judge instances, by dialect, kind and set of extension keywords, reused across loads. */
const judges = new Map<string, AnyAjv>();

/** Computes a verdict. Pure: the same job gives the same verdict. */
export function judge(job: JudgeJob): Verdict {
  const id = `${job.dialect}:${job.kind}:${job.extensions.join(',')}`;
  let ajv = judges.get(id);
  if (!ajv) {
    ajv = newAjv(job.dialect, job.kind, 'judge');
    for (const name of job.extensions) if (!ajv.getKeyword(name)) ajv.addKeyword({ keyword: name, schemaType: [] });
    judges.set(id, ajv);
  }
  // Copied, so that no reference into ajv's state is kept (they are plain data already).
  const meta = ajv.validateSchema(withValuesRenamed(job.forAjv))
    ? []
    : (JSON.parse(JSON.stringify(ajv.errors ?? [])) as ErrorObject[]);
  if (!job.compile || metaErrors(meta).length) return { meta };
  let compiled: CompiledCode | undefined;
  try {
    compiled = compileSchema(job.forAjv, job.dialect, job.kind).code;
    const places = defaultPlaces(job.bundled);
    const defaults = places.length ? defaultProblems(ajv, job.dialect, job.forAjv, job.bundled, places) : [];
    return { meta, compiled, ...(defaults.length ? { defaults } : {}) };
  } catch (e) {
    // What ajv threw compiling the schema, or, with the code compiled, its defaults.
    return { meta, ...(compiled && { compiled }), error: e instanceof Error ? e.message : String(e) };
  }
}
