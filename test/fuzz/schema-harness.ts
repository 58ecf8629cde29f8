/**
 * The machinery of the schema property test, shared with its regression fixtures: a spec in a project folder →
 * loadModel + generate + writeOutput in-process → the generated dispatcher called with values → its verdict beside
 * that of a reference ajv compiled at test time from the same schema → one strict TypeScript program over all
 * projects (emitting JavaScript) → each emitted registry loads every handler module.
 */
import fs from 'node:fs';
import path from 'node:path';
import { inspect, isDeepStrictEqual } from 'node:util';
import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { generate } from '../helpers/generate.js';
import type { ServerModel } from '../../src/pipeline/model.js';
import { loadModel } from '../../src/compile.js';
import { writeOutput } from '../../src/write/write.js';
import type * as DispatcherModule from '../../templates/runtime/dispatcher.js';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { createContext, localRequest, type ToolContext } from '../../templates/runtime/context.js';
import { Round } from '../../templates/runtime/input.js';
import type * as ToolsModule from '../../templates/runtime/tools.js';
import { compile, tsFiles } from '../helpers/project.js';
import { DRAFT_07_URI, type Schema, type SchemaObject } from './schema-pools.js';
import { referenceSchema } from './schema-values.js';

/** One call of the property: arguments for a tool, or a value its handler returns as structured output. */
export interface Call {
  tool: string;
  kind: 'input' | 'output';
  /** Absent: a call without `arguments` (input), which the dispatcher treats as {}. */
  value?: unknown;
  /**
   * For the few cases where ajv is no reference (see Reference): the verdict, and for accepted arguments what the
   * handler receives (defaults filled in). Written by hand in a regression case; never drawn.
   */
  expect?: { accepted: boolean; args?: unknown };
}

export const SPEC_FILE = 'toolspec.yaml';
export const CALLS_FILE = 'calls.json';

export interface Prepared {
  dir: string;
  /** The spec as data (what the reference validators are compiled from). */
  spec: Record<string, unknown>;
  model?: ServerModel;
  /** Errors from loadModel or generate; empty when the project was written. */
  problems: string[];
}

/** Loads, generates and writes the project in `dir` (its toolspec.yaml), as `toolspec generate` would. */
export async function prepare(dir: string): Promise<Prepared> {
  const text = fs.readFileSync(path.join(dir, SPEC_FILE), 'utf8');
  const spec = parseYaml(text) as Record<string, unknown>;
  const { model, validators, diagnostics } = loadModel(SPEC_FILE, { cwd: dir });
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length || !model) {
    return {
      dir,
      spec,
      problems: errors.map(
        (d) => `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}${d.hint ? ` (${d.hint})` : ''}`,
      ),
    };
  }
  try {
    writeOutput(dir, model.options, await generate(model, validators!));
  } catch (e) {
    return {
      dir,
      spec,
      model,
      problems: [`generate failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`],
    };
  }
  return { dir, spec, model, problems: [] };
}

// ---------------------------------------------------------------------------------------------------------------
// The reference

type AnyAjv = InstanceType<typeof Ajv.default>;

/**
 * ajv instances that judge as the JSON Schema spec says, configured here, independently of toolspec:
 * - not strict, and no meta-schema check: toolspec has judged the schema already (and ajv's meta-schema check
 *   compares enum values with a deep equality that throws on {"toString": …});
 * - ajv-formats in full mode (ajv's default);
 * - `ownProperties`: a JSON object has only its own members; by default ajv finds `constructor` or `toString` on
 *   the prototype of `{}` and judges that instead. Data stays made of ordinary objects: ajv's deep equality (const,
 *   enum, uniqueItems) compares constructors, so objects without a prototype never equal the schema's own;
 * - `allErrors`: it should not change a verdict, but without it ajv 8 does not enforce `required: [""]` (its code
 *   records the missing name as `missing = ""`, which is falsy);
 * - inputs with `useDefaults`: the dispatcher fills in schema defaults while it validates, and a filled-in default
 *   changes what the rest of the schema sees (a `required` property with a default is then present;
 *   `maxProperties`, `dependentRequired`, `unevaluatedProperties` and `not` see the added property), so accepting
 *   "the same values" means validating with the same defaults applied. Outputs are validated as they are.
 * ajv never fills in the default of a property named like an inherited member (it tests
 * `data.toString === undefined`): the arbitraries draw no such default; a regression case states what it expects.
 */
export class Reference {
  readonly #instances = new Map<string, AnyAjv>();

  validator(schema: SchemaObject, shared: Record<string, Schema>, kind: Call['kind']): ValidateFunction {
    const draft07 = schema['$schema'] === DRAFT_07_URI;
    const id = `${draft07}:${kind}`;
    let ajv = this.#instances.get(id);
    if (!ajv) {
      const options = {
        strict: false,
        validateSchema: false,
        allErrors: true,
        ownProperties: true,
        useDefaults: kind === 'input',
        logger: false as const,
      };
      ajv = draft07 ? new Ajv.default(options) : new Ajv2020.default(options);
      addFormats.default(ajv);
      this.#instances.set(id, ajv);
    }
    return ajv.compile(referenceSchema(schema, shared));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The generated dispatcher beside the reference

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The same JSON data: same types, array items, and own keys and values (prototypes do not matter). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
  }
  return a === b;
}

const show = (v: unknown): string => (v === undefined ? '(no arguments)' : JSON.stringify(v));

/** The verdict a regression case states. */
function stated(expect: NonNullable<Call['expect']>): { ok: boolean; why: string } {
  return { ok: expect.accepted, why: `the case says it is ${expect.accepted ? 'accepted' : 'rejected'}` };
}

/**
 * The reference's verdict. ajv can throw instead of answering: its deep equality (enum, const, uniqueItems) calls
 * a value's own `toString`/`valueOf`, so `{"toString": 1}` makes it throw. A value ajv cannot judge must not be
 * accepted: the dispatcher must answer with an error result, and keep serving.
 */
function judge(validate: ValidateFunction, data: unknown): { ok: boolean; why: string } {
  try {
    const ok = validate(data) === true;
    return { ok, why: ok ? 'ajv accepts' : `ajv rejects (${JSON.stringify(validate.errors)})` };
  } catch (e) {
    return { ok: false, why: `ajv throws (${String(e)}), so it cannot be accepted` };
  }
}

export interface CallReport {
  problems: string[];
  /** Calls compared, and how many the reference accepted. */
  compared: number;
  accepted: number;
  /** Output calls skipped: no accepted arguments to call the tool with, or a value shaped as a CallToolResult. */
  skipped: number;
  /** The calls that went wrong, to keep as a regression case. */
  failing: Call[];
}

/**
 * Calls the generated dispatcher (imported from the generated TypeScript) with each value, and compares its verdict
 * with the reference's: arguments are accepted when the handler runs (rejected: an "Invalid arguments" result, or
 * JSON-RPC error -32602 for arguments that are not an object); output is accepted when the result is not an error.
 */
export async function compareCalls(
  prepared: Prepared,
  calls: readonly Call[],
  reference = new Reference(),
): Promise<CallReport> {
  const report: CallReport = { problems: [], compared: 0, accepted: 0, skipped: 0, failing: [] };
  const model = prepared.model!;
  const genDir = path.join(prepared.dir, model.options.generatedDir);
  const toolsModule = (await import(path.join(genDir, 'tools.ts'))) as typeof ToolsModule;
  const dispatcherModule = (await import(path.join(genDir, 'dispatcher.ts'))) as typeof DispatcherModule;

  const shared = (isObject(prepared.spec['$defs']) ? prepared.spec['$defs'] : {}) as Record<string, Schema>;
  const specTools = new Map((prepared.spec['tools'] as Record<string, unknown>[]).map((t) => [t['name'] as string, t]));
  let state: { called: boolean; args?: unknown; output?: unknown; mode: Call['kind'] } = {
    called: false,
    mode: 'input',
  };
  const handlers = Object.fromEntries(
    [...specTools.keys()].map((name) => [
      name,
      (args: unknown) => {
        state.called = true;
        state.args = args;
        if (state.mode === 'output') return structuredClone(state.output);
        // With an outputSchema a string is no valid result; an error result is sent as it is.
        return specTools.get(name)!['outputSchema'] ? { content: [{ type: 'text', text: 'ok' }], isError: true } : 'ok';
      },
    ]),
  );
  const dispatcher = dispatcherModule.createDispatcher({
    tools: toolsModule.tools,
    bindings: toolsModule.loadBindings,
    handlers,
    onError: () => {},
  });
  const validators = new Map<string, ValidateFunction>();
  const validatorOf = (tool: string, kind: Call['kind']) => {
    const id = `${kind}:${tool}`;
    let v = validators.get(id);
    if (!v) {
      const schema = specTools.get(tool)![kind === 'input' ? 'inputSchema' : 'outputSchema'] as SchemaObject;
      validators.set(id, (v = reference.validator(schema, shared, kind)));
    }
    return v;
  };
  const acceptedArgs = new Map<string, unknown>();
  const fail = (call: Call, message: string) => {
    report.problems.push(message);
    report.failing.push(call);
  };
  // With options.refs: inline, what clients receive (manifest.json) must accept exactly what the spec's schema
  // accepts: both judged without defaults, since a default is an annotation to a client.
  const manifest = new Map(
    (
      JSON.parse(fs.readFileSync(path.join(genDir, 'manifest.json'), 'utf8')) as { tools: Record<string, unknown>[] }
    ).tools.map((t) => [t['name'] as string, t]),
  );
  const inlined = model.options.refs === 'inline';
  const asSent = new Map<string, [ValidateFunction, ValidateFunction]>();
  const sentJudges = (tool: string, kind: Call['kind']) => {
    const id = `${kind}:${tool}`;
    let pair = asSent.get(id);
    if (!pair) {
      const key = kind === 'input' ? 'inputSchema' : 'outputSchema';
      const clientSchema = manifest.get(tool)![key] as SchemaObject;
      pair = [
        reference.validator(clientSchema, {}, 'output'),
        reference.validator(specTools.get(tool)![key] as SchemaObject, shared, 'output'),
      ];
      asSent.set(id, pair);
    }
    return pair;
  };

  for (const call of calls) {
    const schemaKey = call.kind === 'input' ? 'inputSchema' : 'outputSchema';
    const schema = specTools.get(call.tool)?.[schemaKey];
    if (!schema) throw new Error(`calls name ${call.kind} of tool "${call.tool}", which has no ${schemaKey}`);
    const where = `tool "${call.tool}" ${call.kind} ${show(call.value)}\n  schema: ${JSON.stringify(referenceSchema(schema as SchemaObject, shared))}`;
    const validate = validatorOf(call.tool, call.kind);
    if (inlined && !call.expect) {
      const [client, spec] = sentJudges(call.tool, call.kind);
      const value = call.value === undefined ? {} : call.value;
      const [byClient, bySpec] = [client, spec].map((v) => judge(v, structuredClone(value)).ok);
      if (byClient !== bySpec) {
        fail(
          call,
          `${where}\n  the inlined schema clients receive ${byClient ? 'accepts' : 'refuses'} it, the spec's schema ${bySpec ? 'accepts' : 'refuses'} it: ${JSON.stringify(manifest.get(call.tool))}`,
        );
        continue;
      }
    }

    if (call.kind === 'input') {
      let expected = structuredClone(call.value === undefined ? {} : call.value);
      const { ok: ajvAccepts, why } = call.expect ? stated(call.expect) : judge(validate, expected);
      if (call.expect?.args !== undefined) expected = call.expect.args;
      state = { called: false, mode: 'input' };
      let outcome: string;
      try {
        const { sdk, connection } = localRequest();
        const result = (await dispatcher.callTool(
          call.tool,
          call.value === undefined ? undefined : structuredClone(call.value),
          sdk,
          connection,
        )) as CallToolResult;
        const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
        outcome = state.called
          ? 'accepted'
          : result.isError && text.startsWith('Invalid arguments')
            ? `rejected: ${text}`
            : `neither: ${JSON.stringify(result)}`;
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        outcome = state.called
          ? `accepted, then threw ${String(e)}`
          : code === -32602 && !isObject(call.value)
            ? `rejected: ${String(e)}`
            : `threw: ${String(e)}`;
      }
      report.compared++;
      if (ajvAccepts) report.accepted++;
      if (!outcome.startsWith('accepted') && !outcome.startsWith('rejected')) {
        fail(call, `${where}\n  the dispatcher neither ran the handler nor rejected the arguments: ${outcome}`);
      } else if (ajvAccepts !== outcome.startsWith('accepted')) {
        fail(call, `${where}\n  ${why}; the dispatcher ${outcome.split('\n').join(' | ')}`);
      } else if (ajvAccepts && !sameJson(state.args, expected)) {
        fail(
          call,
          `${where}\n  both accept, but the handler got ${inspect(state.args)}; with the schema's defaults it is ${inspect(expected)}`,
        );
      } else if (ajvAccepts && !acceptedArgs.has(call.tool)) {
        acceptedArgs.set(call.tool, call.value);
      }
      continue;
    }

    // Output: the handler returns the value; the tool is called with arguments its input schema accepted.
    const args = acceptedArgs.get(call.tool);
    const shapedAsResult = isObject(call.value) && Array.isArray(call.value['content']);
    if ((args === undefined && !acceptedArgs.has(call.tool)) || shapedAsResult) {
      report.skipped++;
      continue;
    }
    const { ok: ajvAccepts, why } = call.expect ? stated(call.expect) : judge(validate, structuredClone(call.value));
    state = { called: false, mode: 'output', output: call.value };
    const { sdk, connection } = localRequest();
    const result = (await dispatcher.callTool(
      call.tool,
      args === undefined ? undefined : structuredClone(args),
      sdk,
      connection,
    )) as CallToolResult;
    const sent = result.isError !== true;
    report.compared++;
    if (ajvAccepts) report.accepted++;
    if (!state.called) {
      fail(call, `${where}\n  the handler was not called with arguments accepted before: ${JSON.stringify(result)}`);
    } else if (ajvAccepts !== sent) {
      fail(
        call,
        `${where}\n  output: ${why}; the dispatcher ${sent ? 'sends it' : `refuses it: ${JSON.stringify(result.content)}`}`,
      );
    } else if (sent && !sameJson(result.structuredContent, call.value)) {
      fail(call, `${where}\n  sent, but structuredContent is ${JSON.stringify(result.structuredContent)}`);
    }
  }
  return report;
}

// ---------------------------------------------------------------------------------------------------------------
// Compiling, and the emitted registry

/** Runtime files that only the server entry points reach; every project holds the same copy of the template. */
const ENTRY_POINTS = new Set(['server.ts', 'stdio.ts', 'web.ts', 'fetch.ts', 'http.ts', 'main.ts', 'index.ts']);

/**
 * Type-checks the projects' generated files and handler stubs in ONE strict program, emitting JavaScript to
 * `<base>/out` (as a user's build would), and returns the compiler's diagnostics. Every file that depends on the
 * spec is checked in every project; the server entry points (byte-for-byte copies of templates/runtime, and the
 * costliest files to check: the SDK's transports) only in the first project.
 */
export function compileProjects(base: string, projects: readonly Prepared[]): string[] {
  const files = projects.flatMap((p, i) => {
    const genDir = path.join(p.dir, p.model!.options.generatedDir);
    return tsFiles(p.dir).filter((f) => i === 0 || path.dirname(f) !== genDir || !ENTRY_POINTS.has(path.basename(f)));
  });
  return compile(files, { outDir: path.join(base, 'out'), rootDir: base });
}

/**
 * Loads the emitted registry of a project and calls each tool's handler through it: each handler module must load
 * (the stub then throws its ToolError). A handler module the build did not emit fails here.
 */
export async function checkRegistry(base: string, prepared: Prepared): Promise<string[]> {
  const model = prepared.model!;
  const emitted = path.join(base, 'out', path.relative(base, prepared.dir), model.options.generatedDir);
  const problems: string[] = [];
  const registry = (await import(path.join(emitted, 'registry.js'))) as {
    handlers: Record<string, (a: unknown, c: ToolContext) => unknown>;
  };
  const tools = (await import(path.join(emitted, 'tools.js'))) as typeof ToolsModule;
  const names = model.tools.map((t) => t.name);
  if (
    !isDeepStrictEqual(
      tools.tools.map((t) => t.name),
      names,
    )
  )
    problems.push(
      `${prepared.dir}: the emitted manifest lists ${JSON.stringify(tools.tools.map((t) => t.name))}, the spec ${JSON.stringify(names)}`,
    );
  for (const name of names) {
    if (!Object.hasOwn(registry.handlers, name)) {
      problems.push(`${prepared.dir}: the emitted registry has no own handler for tool "${name}"`);
      continue;
    }
    try {
      const { sdk, connection } = localRequest();
      await registry.handlers[name]!({}, createContext(name, sdk, connection, new Round(1, undefined, undefined)));
      problems.push(`${prepared.dir}: the handler stub of tool "${name}" returned instead of throwing its ToolError`);
    } catch (e) {
      if ((e as Error | undefined)?.name !== 'ToolError') {
        problems.push(`${prepared.dir}: tool "${name}": its handler module did not load from the build: ${String(e)}`);
      }
    }
  }
  return problems;
}

/** Writes a spec and its calls as a project folder (the shape of a regression fixture). */
export function writeCase(dir: string, spec: Record<string, unknown>, calls: readonly Call[], note?: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, SPEC_FILE), `${JSON.stringify(spec, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, CALLS_FILE), `${JSON.stringify({ ...(note ? { note } : {}), calls }, null, 2)}\n`);
}

export function readCalls(dir: string): Call[] {
  const file = path.join(dir, CALLS_FILE);
  if (!fs.existsSync(file)) return [];
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { calls: Call[] }).calls;
}
