/**
 * RFC 6570 URI templates as resource templates use them: parsed once (by `toolspec validate`, which imports this
 * module, and by the generated server), then matched against the URIs clients read. Shared by the generator and
 * every generated project, so the two never disagree on what a template means. Imports nothing.
 *
 * Supported expressions, the ones resource templates need (others are refused when the spec is loaded):
 * - `{name}`: one path segment. Its value never holds `/`, `\`, `?`, `#`, a control character, and is never `.` or
 *   `..`, even percent-encoded: a variable cannot break out of its segment.
 * - `{+name}`: reserved expansion, a value that may span segments (`docs/{+path}`). `\`, control characters, empty
 *   segments (so no leading `/`: `files:///etc` is not `/etc`) and `.`/`..` segments are refused, so it cannot
 *   climb out of its prefix either, even when a handler hands it to `path.resolve` or `new URL`.
 * - `{?a,b}` and then `{&c}`: query parameters, each optional, in any order; other parameters are ignored.
 * Variable names are identifiers (`[A-Za-z_][A-Za-z0-9_]*`), so handlers receive them as typed properties.
 * Values are percent-decoded exactly once, and a value that still holds a percent-escape once decoded (`%252e`
 * arrives as `%2e`) is refused: decoding it again could only make it something the checks above did not see.
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
/** A percent-escape left in a decoded value. */
const ESCAPE = /%[0-9A-Fa-f]{2}/;

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

/** A path piece of a template: literal text, or one variable with the characters its value may hold. */
type Step = { literal: string } | { allowed: (code: number) => boolean };

/** A URI cut as a template reads it: each path variable's raw text in template order, and the query after `?`. */
export interface UriSplit {
  values: string[];
  query: string | undefined;
}

const SLASH = 0x2f;
const QUESTION = 0x3f;
const HASH = 0x23;
const BACKSLASH = 0x5c;
const inPlus = (c: number) => c !== QUESTION && c !== HASH && c !== BACKSLASH;
const inSegment = (c: number) => c !== SLASH && inPlus(c);

/**
 * Matching takes time linear in the URI's length for every template: a URI is one untrusted request, and a
 * backtracking regex over two variables around a literal their characters allow (`{owner}-{repo}`) takes seconds
 * on a near-miss of a few tens of kilobytes, with every other request waiting. The result is the one a greedy
 * regex would give (each variable as long as the rest allows, in template order); test/uri-template.test.ts holds
 * the two equal. First, from the end backwards, which positions each remaining piece can match from (`ok`); then,
 * forwards, each variable takes the longest run of its characters after which the rest matches.
 */
export function uriSplitter(template: UriTemplate): (uri: string) => UriSplit | undefined {
  const steps: Step[] = [];
  for (const part of template.parts) {
    if ('literal' in part) steps.push({ literal: part.literal });
    else if (part.operator === '' || part.operator === '+')
      steps.push({ allowed: part.operator === '' ? inSegment : inPlus });
  }
  const takesQuery = template.parts.some((p) => !('literal' in p) && (p.operator === '?' || p.operator === '&'));
  return (uri) => {
    const n = uri.length;
    // ok[k][p] = 1 when steps k.. and then the end (or a query, when the template takes one) match uri from p.
    const ok = Array.from({ length: steps.length + 1 }, () => new Uint8Array(n + 1));
    const lastHash = uri.lastIndexOf('#');
    const tail = ok[steps.length]!;
    tail[n] = 1;
    if (takesQuery) for (let p = lastHash + 1; p < n; p++) if (uri.charCodeAt(p) === QUESTION) tail[p] = 1;
    for (let k = steps.length - 1; k >= 0; k--) {
      const step = steps[k]!;
      const cur = ok[k]!;
      const next = ok[k + 1]!;
      if ('literal' in step) {
        const size = step.literal.length;
        for (let p = 0; p + size <= n; p++) if (next[p + size] && uri.startsWith(step.literal, p)) cur[p] = 1;
      } else
        for (let p = n - 1; p >= 0; p--) if (step.allowed(uri.charCodeAt(p)) && (next[p + 1] || cur[p + 1])) cur[p] = 1;
    }
    if (!ok[0]![0]) return undefined;
    const values: string[] = [];
    let p = 0;
    for (const [k, step] of steps.entries()) {
      if ('literal' in step) {
        p += step.literal.length;
        continue;
      }
      const next = ok[k + 1]!;
      let end = p;
      for (let q = p + 1; q <= n && step.allowed(uri.charCodeAt(q - 1)); q++) if (next[q]) end = q;
      values.push(uri.slice(p, end));
      p = end;
    }
    return { values, query: p < n ? uri.slice(p + 1) : undefined };
  };
}

export function compileUriTemplate(template: UriTemplate): UriMatcher {
  const split = uriSplitter(template);
  const operators = new Map(template.variables.map((v) => [v.name, v.operator]));
  const names = template.variables.flatMap((v) => (v.operator === '' || v.operator === '+' ? [v.name] : []));
  const queryNames = template.variables.flatMap((v) => (v.operator === '?' || v.operator === '&' ? [v.name] : []));
  return {
    template,
    match(uri) {
      const parts = split(uri);
      if (!parts) return undefined;
      const values: Record<string, string | undefined> = Object.create(null) as Record<string, string | undefined>;
      for (const [i, name] of names.entries()) {
        const value = decode(parts.values[i]!);
        if (value === undefined || CONTROL.test(value) || value.includes('\\')) return undefined;
        if (ESCAPE.test(value)) return undefined;
        const segments = value.split('/');
        if (segments.some((s) => s === '.' || s === '..' || s === '')) return undefined;
        if (operators.get(name) === '' && (segments.length > 1 || /[?#]/.test(value))) return undefined;
        values[name] = value;
      }
      for (const name of queryNames) values[name] = undefined;
      if (parts.query) {
        for (const pair of parts.query.split('&')) {
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

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why a URL of `auth` cannot serve (https, but http on loopback; no credentials, fragment, or query where compared). */
export function authUrlProblem(text: string, compared: boolean): { message: string; hint: string } | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { message: 'is not an absolute URL', hint: 'write it whole, e.g. https://auth.example.com' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)))
    return {
      message: `must be https, not ${url.protocol.replace(/:$/, '')}`,
      hint: 'tokens and keys travel over it: http is accepted only on loopback (localhost, 127.0.0.1, [::1])',
    };
  if (url.username || url.password)
    return {
      message: 'must not carry credentials',
      hint: 'secrets come from the environment: TOOLSPEC_AUTH_CLIENT_ID and TOOLSPEC_AUTH_CLIENT_SECRET',
    };
  if (url.hash || text.includes('#'))
    return { message: 'must not have a fragment (#…)', hint: 'RFC 8707 and RFC 8414 identifiers have none' };
  if (compared && url.search)
    return { message: 'must not have a query (?…)', hint: 'an issuer and a resource identifier are compared whole' };
  return undefined;
}
