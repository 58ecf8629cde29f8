/**
 * `x-mcp-header` (SEP-2243): an argument a 2026-07-28 client mirrors into an `Mcp-Param-{Name}` HTTP header.
 * Clients drop a tool whose declaration breaks the rules below, so a broken one is an error here, with its
 * position, and never reaches a client.
 */
import type { DiagnosticCode, Span } from '../../core/diagnostics.js';
import type { McpHeaderDeclaration } from '../model.js';
import { walkSchema, type SchemaPath } from '../schema/keywords.js';

const MCP_HEADER = 'x-mcp-header';

/** How a schema's checks report a problem (schemas.ts counts them: an error stops the compile). */
export type Report = (code: DiagnosticCode, span: Span, message: string, hint?: string) => void;

/** RFC 9110 field-name token characters. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const TYPES = ['string', 'integer', 'boolean'] as const;

/**
 * Every `x-mcp-header` in a (bundled) schema, checked by the rules clients apply: a non-empty token, on a string,
 * integer or boolean property reached from the root through `properties` alone, unique ignoring case. Reports each
 * broken one; returns the declarations when all hold.
 */
export function checkMcpHeaders(
  schema: Record<string, unknown>,
  which: 'inputSchema' | 'outputSchema',
  locate: (path: SchemaPath, key?: boolean) => Span,
  report: Report,
): McpHeaderDeclaration[] {
  const found: McpHeaderDeclaration[] = [];
  const seen = new Map<string, string>();
  let broken = false;
  walkSchema(schema, (node, path) => {
    if (!Object.hasOwn(node, MCP_HEADER)) return;
    const value = node[MCP_HEADER];
    const at = locate([...path, MCP_HEADER], true);
    const fail = (message: string, hint: string) => {
      broken = true;
      report('TS040', at, message, hint);
    };
    if (which === 'outputSchema')
      return fail(
        'x-mcp-header belongs on an argument, in inputSchema',
        'clients mirror arguments into headers, not results: remove it',
      );
    if (typeof value !== 'string' || !TOKEN.test(value))
      return fail(
        `x-mcp-header ${JSON.stringify(value)} is not a valid header name`,
        "use letters, digits and ! # $ % & ' * + - . ^ _ ` | ~ only (it becomes the header Mcp-Param-<name>), e.g. x-mcp-header: Region",
      );
    const names = propertyChain(path);
    if (!names)
      return fail(
        `x-mcp-header "${value}" sits where clients cannot reach it statically`,
        'put it on a property reached from the root through "properties" alone: not inside items, allOf/anyOf/oneOf/not, if/then/else, $defs or behind a $ref',
      );
    const type = node['type'];
    if (typeof type !== 'string' || !(TYPES as readonly string[]).includes(type))
      return fail(
        `x-mcp-header "${value}" is on a property of type ${JSON.stringify(type ?? 'any')}`,
        'only string, integer and boolean arguments can be mirrored into a header (not number, nor a list of types)',
      );
    const first = seen.get(value.toLowerCase());
    if (first !== undefined)
      return fail(
        `x-mcp-header "${value}" is used twice in this inputSchema (also as "${first}"; header names ignore case)`,
        'give each mirrored argument its own header name',
      );
    seen.set(value.toLowerCase(), value);
    found.push({ header: value, path: names, type: type as McpHeaderDeclaration['type'] });
  });
  return broken ? [] : found;
}

/** The property names of a path made of `properties` steps only ("properties/a/properties/b" → [a, b]). */
function propertyChain(path: SchemaPath): string[] | undefined {
  const steps = path.every((s, i) => (i % 2 ? typeof s === 'string' : s === 'properties'));
  return steps && path.length && !(path.length % 2) ? (path.filter((_, i) => i % 2) as string[]) : undefined;
}
