/**
 * Argument names that every object inherits (`constructor`, `toString`, `hasOwnProperty`, `__proto__`, …). ajv's
 * generated code reads `data.constructor`, so on an ordinary object such a property is "present" when nobody sent
 * it, and its default is never applied; `__proto__` it leaves out of `properties` altogether. Schemas that use
 * these names are compiled with `__proto__` renamed, and their validators run on objects without a prototype:
 * the generated dispatcher does the same at run time (guardInherited in templates/runtime/dispatcher.ts).
 */
import { isObject, walkSchema } from './keywords.js';

/** The name `__proto__` is compiled under (ajv ignores a property of that name). */
export const PROTO_PLACEHOLDER = '__toolspec_proto__';

const INHERITED = new Set(Object.getOwnPropertyNames(Object.prototype));

export interface InheritedUse {
  /** Whether any property name is one that objects inherit. */
  any: boolean;
  /** Whether `__proto__` is one of them. */
  proto: boolean;
}

/** Which inherited names a schema uses as property names (in properties, required or dependencies). */
export function inheritedUse(schema: object): InheritedUse {
  const use: InheritedUse = { any: false, proto: false };
  const see = (name: unknown) => {
    if (typeof name !== 'string' || !INHERITED.has(name)) return;
    use.any = true;
    if (name === '__proto__') use.proto = true;
  };
  walkSchema(schema as Record<string, unknown>, (node) => {
    for (const k of ['properties', 'dependentRequired', 'dependentSchemas', 'dependencies'] as const) {
      const v = node[k];
      if (isObject(v)) Object.keys(v).forEach(see);
    }
    if (Array.isArray(node['required'])) node['required'].forEach(see);
  });
  return use;
}

/** The schema with every property called `__proto__` renamed to the placeholder, where it names one. */
export function renameProto(schema: unknown, inPropertyNames = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => renameProto(s, inPropertyNames));
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    let value: unknown;
    if (k === 'required') value = renameData(v, true);
    else if (k === 'dependentRequired' || k === 'dependencies') value = isObject(v) ? mapValues(v, (d) => (Array.isArray(d) ? renameData(d, true) : renameProto(d))) : v;
    else if (k === 'const' || k === 'enum' || k === 'default' || k === 'examples') value = renameData(v, inPropertyNames);
    else if (k === 'propertyNames') value = renameProto(v, true);
    else value = renameProto(v, inPropertyNames);
    define(out, k === '__proto__' ? PROTO_PLACEHOLDER : k, value);
  }
  return out;
}

/** A value from the schema as the renamed data will look: keys renamed, and strings too where they are names. */
function renameData(value: unknown, names: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => renameData(v, names));
  if (typeof value === 'string') return names && value === '__proto__' ? PROTO_PLACEHOLDER : value;
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) define(out, k === '__proto__' ? PROTO_PLACEHOLDER : k, renameData(v, false));
  return out;
}

function mapValues(o: Record<string, unknown>, f: (v: unknown) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) define(out, k === '__proto__' ? PROTO_PLACEHOLDER : k, f(v));
  return out;
}

function define(o: Record<string, unknown>, k: string, value: unknown): void {
  Object.defineProperty(o, k, { value, enumerable: true, writable: true, configurable: true });
}

/** What a compiled validator needs: ajv's function, with its `errors`. */
export interface RawValidator {
  (data: unknown): boolean;
  errors?: { instancePath: string; params: Record<string, unknown> }[] | null;
}

/**
 * A validator for data whose objects are first given no prototype (in place) and whose `__proto__` keys are
 * renamed for the check and back after it. The loader's copy of the generated runtime's guardInherited.
 */
export function guardInherited<V extends RawValidator>(validate: V, proto: boolean): V {
  const guarded = ((data: unknown) => {
    prepare(data, proto);
    const ok = validate(data);
    if (proto) restore(data);
    guarded.errors = validate.errors && proto ? validate.errors.map(unrenameError) : validate.errors;
    return ok;
  }) as V;
  return guarded;
}

function prepare(data: unknown, proto: boolean): void {
  if (Array.isArray(data)) return data.forEach((d) => prepare(d, proto));
  if (typeof data !== 'object' || data === null) return;
  Object.setPrototypeOf(data, null);
  const record = data as Record<string, unknown>;
  if (proto && Object.hasOwn(record, '__proto__')) {
    record[PROTO_PLACEHOLDER] = record['__proto__'];
    delete record['__proto__'];
  }
  for (const v of Object.values(record)) prepare(v, proto);
}

function restore(data: unknown): void {
  if (Array.isArray(data)) return data.forEach(restore);
  if (typeof data !== 'object' || data === null) return;
  const record = data as Record<string, unknown>;
  if (Object.hasOwn(record, PROTO_PLACEHOLDER)) {
    record['__proto__'] = record[PROTO_PLACEHOLDER]; // an own property: the object has no prototype
    delete record[PROTO_PLACEHOLDER];
  }
  for (const v of Object.values(record)) restore(v);
}

function unrenameError<E extends { instancePath: string; params: Record<string, unknown> }>(e: E): E {
  const swap = (v: unknown) => (v === PROTO_PLACEHOLDER ? '__proto__' : v);
  return {
    ...e,
    instancePath: e.instancePath
      .split('/')
      .map((s) => swap(s))
      .join('/'),
    params: Object.fromEntries(Object.entries(e.params).map(([k, v]) => [k, swap(v)])),
  };
}
