/**
 * RFC 6570 URI templates as resource templates use them: parsed once (by `toolspec validate`, which imports this
 * module, and by the generated server), then matched against the URIs clients read. Shared by the generator and
 * every generated project, so the two never disagree on what a template means. Imports nothing.
 *
 * Supported expressions, the ones resource templates need (others are refused when the spec is loaded):
 * - `{name}`: one path segment. Its value never holds `/`, `\`, `?`, `#`, a control character, and is never `.` or
 *   `..`, even percent-encoded: a variable cannot break out of its segment.
 * - `{+name}`: reserved expansion, a value that may span segments (`docs/{+path}`). `\`, control characters and
 *   `.`/`..` segments are refused, so it cannot climb out of its prefix either.
 * - `{?a,b}` and then `{&c}`: query parameters, each optional, in any order; other parameters are ignored.
 * Variable names are identifiers (`[A-Za-z_][A-Za-z0-9_]*`), so handlers receive them as typed properties.
 */

export type TemplateOperator = '' | '+' | '?' | '&';

export interface TemplateVariable {
  name: string;
  operator: TemplateOperator;
}

export type TemplatePart = { literal: string } | { operator: TemplateOperator; names: string[] };

export interface UriTemplate {
  source: string;
  parts: TemplatePart[];
  /** Every variable, in template order. */
  variables: TemplateVariable[];
}

export interface TemplateError {
  message: string;
  /** Offset of the problem in the template text. */
  offset: number;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseUriTemplate(source: string): { template: UriTemplate } | { error: TemplateError } {
  const parts: TemplatePart[] = [];
  const variables: TemplateVariable[] = [];
  const seen = new Set<string>();
  let i = 0;
  let query = false;
  while (i < source.length) {
    const open = source.indexOf('{', i);
    const close = source.indexOf('}', i);
    if (close !== -1 && (open === -1 || close < open))
      return { error: { message: 'a "}" without its "{"', offset: close } };
    if (open === -1) {
      parts.push({ literal: source.slice(i) });
      break;
    }
    if (open > i) {
      if (query) return { error: { message: 'text after a query expression {?…}', offset: i } };
      parts.push({ literal: source.slice(i, open) });
    }
    const end = source.indexOf('}', open);
    if (end === -1) return { error: { message: 'a "{" without its "}"', offset: open } };
    const body = source.slice(open + 1, end);
    let operator: TemplateOperator = '';
    let list = body;
    if (/^[+?&]/.test(body)) {
      operator = body[0] as TemplateOperator;
      list = body.slice(1);
    } else if (/^[#./;=,!@|]/.test(body)) {
      return {
        error: {
          message: `the operator "${body[0]}" is not supported; use {name} (one segment), {+name} (several segments) or {?name} (query)`,
          offset: open + 1,
        },
      };
    }
    if (operator === '&' && !query)
      return { error: { message: '{&…} continues a query: put {?…} before it', offset: open } };
    if (operator === '?' && query)
      return { error: { message: 'a second {?…}: continue the query with {&…}', offset: open } };
    if (operator !== '?' && operator !== '&' && query)
      return { error: { message: 'a path expression after a query expression', offset: open } };
    if (operator === '?' || operator === '&') query = true;
    const names = list.split(',');
    if (names.length > 1 && (operator === '' || operator === '+'))
      return {
        error: {
          message: `one variable per path expression: write {${names.join('}{')}} with separators`,
          offset: open,
        },
      };
    for (const name of names) {
      if (/[*:]/.test(name))
        return {
          error: { message: `"${name}": explode (*) and prefix (:n) modifiers are not supported`, offset: open + 1 },
        };
      if (!NAME.test(name))
        return {
          error: {
            message: `"${name}" is not a variable name: use letters, digits and _, not starting with a digit`,
            offset: open + 1,
          },
        };
      if (seen.has(name)) return { error: { message: `the variable "${name}" appears twice`, offset: open + 1 } };
      seen.add(name);
      variables.push({ name, operator });
    }
    const prev = parts[parts.length - 1];
    if (
      prev &&
      !('literal' in prev) &&
      (operator === '' || operator === '+') &&
      (prev.operator === '' || prev.operator === '+')
    )
      return { error: { message: 'two variables with nothing between them cannot be told apart', offset: open } };
    parts.push({ operator, names });
    i = end + 1;
  }
  return { template: { source, parts, variables } };
}

/** Characters no variable value may hold once decoded. */
const CONTROL = /[\u0000-\u001f\u007f]/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function decode(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** A compiled template: `match(uri)` gives the variables, or undefined when the URI is not one of its resources. */
export interface UriMatcher {
  template: UriTemplate;
  match(uri: string): Record<string, string | undefined> | undefined;
}

export function compileUriTemplate(template: UriTemplate): UriMatcher {
  let pattern = '^';
  const groups: string[] = [];
  let queryNames: string[] = [];
  for (const part of template.parts) {
    if ('literal' in part) pattern += escapeRegExp(part.literal);
    else if (part.operator === '') {
      pattern += '([^/?#\\\\]+)';
      groups.push(part.names[0]!);
    } else if (part.operator === '+') {
      pattern += '([^?#\\\\]+)';
      groups.push(part.names[0]!);
    } else queryNames = [...queryNames, ...part.names];
  }
  pattern += queryNames.length ? '(?:\\?([^#]*))?$' : '$';
  const regex = new RegExp(pattern, 's');
  const operators = new Map(template.variables.map((v) => [v.name, v.operator]));
  return {
    template,
    match(uri) {
      const m = regex.exec(uri);
      if (!m) return undefined;
      const values: Record<string, string | undefined> = Object.create(null) as Record<string, string | undefined>;
      for (const [i, name] of groups.entries()) {
        const value = decode(m[i + 1]!);
        if (value === undefined || CONTROL.test(value) || value.includes('\\')) return undefined;
        const segments = value.split('/');
        if (segments.some((s) => s === '.' || s === '..')) return undefined;
        if (operators.get(name) === '' && (segments.length > 1 || /[?#]/.test(value))) return undefined;
        values[name] = value;
      }
      const query = m[groups.length + 1];
      for (const name of queryNames) values[name] = undefined;
      if (query) {
        for (const pair of query.split('&')) {
          const eq = pair.indexOf('=');
          const name = decode(eq === -1 ? pair : pair.slice(0, eq));
          if (name === undefined || !queryNames.includes(name) || values[name] !== undefined) continue;
          const value = decode(eq === -1 ? '' : pair.slice(eq + 1));
          if (value === undefined || CONTROL.test(value)) return undefined;
          values[name] = value;
        }
      }
      return values;
    },
  };
}

/** Whether a URI is absolute (it has a scheme), as resource URIs must be. */
export function hasScheme(uri: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri);
}
