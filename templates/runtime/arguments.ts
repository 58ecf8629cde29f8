/**
 * What the generator and the generated server share about arguments, in one place: this module is copied into
 * every generated project and imported by toolspec's own loader (src/pipeline/validate), so `validate` judges examples as
 * the server judges calls. Pure: no imports, no I/O.
 *
 * - Validators and their errors, as ajv's standalone code produces them.
 * - Inherited property names (`constructor`, `toString`, `__proto__`, …): ajv's code would read them through the
 *   prototype, so schemas that use them are compiled with each renamed to a placeholder, and the data is renamed
 *   the same way for the check and back after it.
 * - The text of an argument's path in messages: "/filters/0/tag" → "filters[0].tag".
 */

/** A precompiled validator, as ajv's standalone code exports it: true when `data` is a `T` (defaults filled in). */
export interface Validator<T = unknown> {
  (data: unknown): data is T;
  errors?: ValidationError[] | null;
}

export interface ValidationError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** The property names every object inherits (`constructor`, `toString`, `__proto__`, …). */
export const INHERITED_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** The name an inherited property name is compiled under. */
export function placeholder(name: string): string {
  return `__toolspec_${name}__`;
}

/**
 * Wraps the validator of a schema compiled with `names` renamed to their placeholders: those keys are renamed in
 * the data for the check and back after it (so `args.toString` is the argument, or its default), and the errors
 * name them as the caller wrote them. `copy`: check a copy instead (outputs, which must not change).
 */
export function guardInherited<V extends Validator<unknown>>(validate: V, names: readonly string[], copy: boolean): V {
  const to = new Map(names.map((n) => [n, placeholder(n)]));
  const back = new Map(names.map((n) => [placeholder(n), n]));
  const swap = (v: unknown) => (typeof v === 'string' && back.get(v)) || v;
  const guarded = ((data: unknown) => {
    const subject = copy ? structuredClone(data) : data;
    renameKeys(subject, to);
    try {
      return validate(subject);
    } finally {
      if (!copy) renameKeys(subject, back);
      guarded.errors =
        validate.errors?.map((e) => ({
          ...e,
          instancePath: e.instancePath.split('/').map(swap).join('/'),
          params: Object.fromEntries(Object.entries(e.params).map(([k, v]) => [k, swap(v)])),
        })) ?? null;
    }
  }) as V;
  return guarded;
}

/** Renames keys of every object in `data`, in place; the renamed keys stay own data properties (`__proto__` too). */
export function renameKeys(data: unknown, map: ReadonlyMap<string, string>): void {
  if (Array.isArray(data)) return data.forEach((d) => renameKeys(d, map));
  if (typeof data !== 'object' || data === null) return;
  const record = data as Record<string, unknown>;
  for (const [from, to] of map) {
    if (!Object.hasOwn(record, from)) continue;
    Object.defineProperty(record, to, { value: record[from], enumerable: true, writable: true, configurable: true });
    delete record[from];
  }
  for (const v of Object.values(record)) renameKeys(v, map);
}

/** The segments of a JSON pointer ("/a~1b/0" → ["a/b", "0"]). */
export function pointerSegments(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * "/filters/0/tag" → "filters[0].tag"; the root is "(arguments)". With the data at hand, a number is an index only
 * where the value is an array; a name that would read as something else ("", "0", "a.b") is quoted: ["a.b"].
 * `child`: a property below the pointer (the one `required` or `additionalProperties` names).
 */
export function argumentPath(pointer: string, child?: string, data?: unknown): string {
  const segs = pointerSegments(pointer);
  if (child !== undefined) segs.push(child);
  if (!segs.length) return '(arguments)';
  let node = data;
  return segs
    .map((s, i) => {
      const index = /^\d+$/.test(s) && (data === undefined || Array.isArray(node));
      node =
        typeof node === 'object' && node !== null && Object.hasOwn(node, s)
          ? (node as Record<string, unknown>)[s]
          : undefined;
      if (index) return `[${s}]`;
      if (!/^[^\s.[\]"'\\]+$/.test(s) || /^\d+$/.test(s)) return `[${JSON.stringify(s)}]`;
      return i === 0 ? s : `.${s}`;
    })
    .join('');
}
