/** The keywords of arrays (items, tuples, contains) and objects (properties, required, additionalProperties, …). */
import { RULE_IDS, RULES, WIDENS, type RuleId } from './rules.js';
import { change, counts, TEXT_ONLY, type Comparer, type Ctx } from './schema-common.js';
import { isAnnotation, isObject, type SchemaView } from './schema-node.js';

/** Rules by which a schema accepts values it did not accept before. */
const WIDENING = new Set<RuleId>([
  ...RULE_IDS.filter((r) => RULES[r][0] === WIDENS),
  'ARGUMENT_ADDED',
  'ARGUMENT_MADE_OPTIONAL',
  'ARGUMENT_REMOVED_STILL_ACCEPTED',
  'ADDITIONAL_PROPERTIES_OPENED',
]);

/** Items (tuples through prefixItems, the rest through items), counts, uniqueItems and contains. */
export function arrays(ctx: Ctx): void {
  const { ok, nk, keyword, child } = ctx;
  counts(ctx, ['minItems', 'minContains'], ['maxItems', 'maxContains']);
  const op = Array.isArray(ok['prefixItems']) ? ok['prefixItems'] : [];
  const np = Array.isArray(nk['prefixItems']) ? nk['prefixItems'] : [];
  for (let i = 0; i < Math.max(op.length, np.length); i++) {
    child(i < op.length ? op[i] : ok['items'], i < np.length ? np[i] : nk['items'], ['prefixItems', i]);
  }
  if ('items' in ok || 'items' in nk) child(ok['items'], nk['items'], ['items']);
  if ('unevaluatedItems' in ok || 'unevaluatedItems' in nk)
    child(ok['unevaluatedItems'], nk['unevaluatedItems'], ['unevaluatedItems']);
  const [ou, nu] = [ok['uniqueItems'], nk['uniqueItems']];
  if (Boolean(ou) !== Boolean(nu))
    keyword(nu ? 'UNIQUE_ITEMS_ADDED' : 'UNIQUE_ITEMS_REMOVED', 'uniqueItems', change(ou, nu));
  if ('contains' in ok && 'contains' in nk) child(ok['contains'], nk['contains'], ['contains']);
  else if ('contains' in ok) keyword('SCHEMA_WIDENED', 'contains', 'contains removed');
  else if ('contains' in nk) keyword('SCHEMA_NARROWED', 'contains', 'contains added');
}

/** Properties (arguments or output fields), required, additional and pattern properties, property names, counts. */
export function objects(cmp: Comparer, ctx: Ctx): void {
  const { ok, nk, add, child } = ctx;
  const input = cmp.side === 'input';
  counts(ctx, ['minProperties'], ['maxProperties']);
  const op = isObject(ok['properties']) ? ok['properties'] : {};
  const np = isObject(nk['properties']) ? nk['properties'] : {};
  const oReq = new Set(Array.isArray(ok['required']) ? (ok['required'] as string[]) : []);
  const nReq = new Set(Array.isArray(nk['required']) ? (nk['required'] as string[]) : []);
  const names = [...Object.keys(op), ...Object.keys(np).filter((k) => !Object.hasOwn(op, k))];
  for (const name of names) {
    const at = ['properties', name];
    if (Object.hasOwn(op, name) && Object.hasOwn(np, name)) child(op[name], np[name], at);
    else if (Object.hasOwn(np, name)) {
      const required = nReq.has(name);
      const rule = input ? (required ? 'ARGUMENT_REQUIRED_ADDED' : 'ARGUMENT_ADDED') : 'OUTPUT_FIELD_ADDED';
      add(rule, at, required ? 'added (required)' : 'added (optional)', undefined, np[name]);
    } else if (!input) {
      add('OUTPUT_FIELD_REMOVED', at, 'removed', op[name]);
    } else {
      const still = stillAccepted(cmp, op[name], name, nk);
      add(still.ok ? 'ARGUMENT_REMOVED_STILL_ACCEPTED' : 'ARGUMENT_REMOVED', at, `removed (${still.why})`, op[name]);
    }
  }
  // A name in one side's required only: made required or optional, unless its property came or went with it.
  for (const name of [...nReq, ...oReq]) {
    const required = nReq.has(name);
    const [now, before] = required ? [np, op] : [op, np];
    if (oReq.has(name) === required || (Object.hasOwn(now, name) && !Object.hasOwn(before, name))) continue;
    const [rule, detail] = required
      ? ([input ? 'ARGUMENT_MADE_REQUIRED' : 'OUTPUT_FIELD_MADE_REQUIRED', 'made required (added to'] as const)
      : ([input ? 'ARGUMENT_MADE_OPTIONAL' : 'OUTPUT_FIELD_MADE_OPTIONAL', 'made optional (removed from'] as const);
    add(rule, ['properties', name], `${detail} required)`, ok['required'], nk['required']);
  }
  for (const kw of ['additionalProperties', 'unevaluatedProperties']) extra(cmp, ctx, kw);
  const opp = isObject(ok['patternProperties']) ? ok['patternProperties'] : {};
  const npp = isObject(nk['patternProperties']) ? nk['patternProperties'] : {};
  for (const p of new Set([...Object.keys(opp), ...Object.keys(npp)])) {
    const at = ['patternProperties', p];
    if (Object.hasOwn(opp, p) && Object.hasOwn(npp, p)) child(opp[p], npp[p], at);
    else if (Object.hasOwn(npp, p)) add('SCHEMA_NARROWED', at, 'pattern added', undefined, npp[p]);
    else add('SCHEMA_WIDENED', at, 'pattern removed', opp[p]);
  }
  if ('propertyNames' in ok || 'propertyNames' in nk)
    child(ok['propertyNames'], nk['propertyNames'], ['propertyNames']);
}

/** additionalProperties / unevaluatedProperties: open (absent, true, {}), closed (false), or a schema. */
function extra(cmp: Comparer, { ok, nk, keyword, child }: Ctx, kw: string): void {
  const o = openness(cmp.oldView, ok[kw]);
  const n = openness(cmp.newView, nk[kw]);
  if (o === 'open' && n === 'open') return;
  if (o === 'schema' && n === 'schema') return child(ok[kw], nk[kw], [kw]);
  if (o === n) return;
  const what = { open: 'open', closed: 'false', schema: 'a schema' };
  const detail = `${what[o]} → ${what[n]}`;
  if (n === 'closed') keyword('ADDITIONAL_PROPERTIES_CLOSED', kw, detail);
  else keyword(o === 'closed' || n === 'open' ? 'ADDITIONAL_PROPERTIES_OPENED' : 'SCHEMA_NARROWED', kw, detail);
}

function openness(view: SchemaView, v: unknown): 'open' | 'closed' | 'schema' {
  const node = view.node(v);
  if (node.never) return 'closed';
  return Object.keys(node.keywords).every(isAnnotation) ? 'open' : 'schema';
}

/** Whether calls that still send a removed argument pass: the schema that now applies to the name accepts it. */
function stillAccepted(cmp: Comparer, oldProp: unknown, name: string, nk: Record<string, unknown>) {
  const patterns = isObject(nk['patternProperties']) ? nk['patternProperties'] : {};
  const match = Object.keys(patterns).find((p) => {
    try {
      return new RegExp(p, 'u').test(name);
    } catch {
      return false;
    }
  });
  const [kw, target] =
    match !== undefined
      ? [`patternProperties ${JSON.stringify(match)}`, patterns[match]]
      : 'additionalProperties' in nk
        ? ['additionalProperties', nk['additionalProperties']]
        : ['unevaluatedProperties', nk['unevaluatedProperties']];
  const node = cmp.newView.node(target);
  if (node.never) return { ok: false, why: `${kw} is false` };
  if (Object.keys(node.keywords).every(isAnnotation)) return { ok: true, why: 'extra arguments are accepted' };
  const narrower = cmp.pair(oldProp, target).some((c) => !TEXT_ONLY.has(c.rule) && !WIDENING.has(c.rule));
  return narrower
    ? { ok: false, why: `${kw} does not accept every value it accepted` }
    : { ok: true, why: `${kw} accepts every value it accepted` };
}
