/**
 * The RFC 6570 subset resource templates use (templates/runtime/uri-template.ts), shared by validate and the
 * generated server: what parses, what a URI gives its variables, and that no variable leaves its segment.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ModuleLoaders } from '../templates/runtime/prompts.js';
import { createResources, MAX_URI_LENGTH } from '../templates/runtime/resources.js';
import {
  compileUriTemplate,
  parseUriTemplate,
  uriSplitter,
  type UriTemplate,
  type UriSplit,
} from '../templates/runtime/uri-template.js';

const matcher = (source: string) => {
  const parsed = parseUriTemplate(source);
  if ('error' in parsed) throw new Error(parsed.error.message);
  return compileUriTemplate(parsed.template);
};
const plain = (v: Record<string, string | undefined> | undefined) => (v === undefined ? v : { ...v });

describe('parseUriTemplate', () => {
  it('reads simple, reserved and query expressions, in template order', () => {
    const parsed = parseUriTemplate('notes://{folder}/{+path}{?version,lang}{&draft}');
    expect('template' in parsed && parsed.template.variables).toEqual([
      { name: 'folder', operator: '' },
      { name: 'path', operator: '+' },
      { name: 'version', operator: '?' },
      { name: 'lang', operator: '?' },
      { name: 'draft', operator: '&' },
    ]);
  });

  it.each([
    ['notes://{/path}', 'the operator "/" is not supported'],
    ['notes://{#frag}', 'the operator "#" is not supported'],
    ['notes://{ids*}', 'explode (*) and prefix (:n) modifiers are not supported'],
    ['notes://{id:3}', 'explode (*) and prefix (:n) modifiers are not supported'],
    ['notes://{a}{b}', 'two variables with nothing between them'],
    ['notes://{a,b}', 'one variable per path expression'],
    ['notes://{id', 'a "{" without its "}"'],
    ['notes://id}', 'a "}" without its "{"'],
    ['notes://{1d}', 'is not a variable name'],
    ['notes://{id}/{id}', 'appears twice'],
    ['notes://{&a}', '{&…} continues a query'],
    ['notes://{?a}/{b}', 'text after a query expression'],
    ['notes://{?a}{?b}', 'a second {?…}'],
  ])('refuses %s', (source, message) => {
    const parsed = parseUriTemplate(source);
    expect('error' in parsed && parsed.error.message).toContain(message);
  });
});

describe('compileUriTemplate: match', () => {
  it('gives each variable its decoded value, and query parameters when present', () => {
    const m = matcher('notes://{folder}/{id}{?version}');
    expect(plain(m.match('notes://work/42'))).toEqual({ folder: 'work', id: '42', version: undefined });
    expect(plain(m.match('notes://work/a%20b?version=3&other=x'))).toEqual({
      folder: 'work',
      id: 'a b',
      version: '3',
    });
    expect(m.match('notes://work')).toBeUndefined();
    expect(m.match('notes://work/42/more')).toBeUndefined();
    expect(m.match('other://work/42')).toBeUndefined();
  });

  it('never lets a segment variable span segments or climb out, even percent-encoded', () => {
    const m = matcher('notes://{id}');
    for (const uri of [
      'notes://a/b',
      'notes://a%2Fb',
      'notes://a%2fb',
      'notes://..',
      'notes://.',
      'notes://%2E%2E',
      'notes://a%5Cb',
      'notes://a\\b',
      'notes://a%3Fb',
      'notes://a%23b',
      'notes://a%00b',
      'notes://a%0Ab',
      'notes://%ZZ',
      'notes://%252e%252e',
      'notes://',
    ]) {
      expect(m.match(uri), uri).toBeUndefined();
    }
    expect(plain(m.match('notes://%3Cscript%3E%24%7B1%7D'))).toEqual({ id: '<script>${1}' });
  });

  it('lets a reserved variable span segments, but no "." or ".." segment', () => {
    const m = matcher('files://root/{+path}');
    expect(plain(m.match('files://root/a/b/c.md'))).toEqual({ path: 'a/b/c.md' });
    for (const uri of [
      'files://root/a/../b',
      'files://root/../etc',
      'files://root/a/%2E%2E/b',
      'files://root/./a',
      // No empty segment, so never an absolute path: path.resolve and new URL would follow one.
      'files://root//etc/passwd',
      'files://root/%2Fetc%2Fpasswd',
      'files://root///////etc',
      'files://root/a//b',
      'files://root/a/',
      // Decoded once, and nothing left to decode: a handler decoding again would find "..".
      'files://root/%252e%252e/etc',
      'files://root/a%252Fb',
    ]) {
      expect(m.match(uri), uri).toBeUndefined();
    }
    expect(m.match('files://other/a')).toBeUndefined();
  });

  it('keeps variables named like inherited members as data', () => {
    const m = matcher('x://{__proto__}/{constructor}');
    const v = m.match('x://a/b')!;
    expect(Object.getPrototypeOf(v)).toBeNull();
    expect(v['__proto__']).toBe('a');
    expect(v['constructor']).toBe('b');
    expect(({} as Record<string, unknown>)['a']).toBeUndefined();
  });

  it('treats the literal parts of a template as text, not as a pattern', () => {
    const m = matcher('x://a.b(c)+/{id}');
    expect(plain(m.match('x://a.b(c)+/1'))).toEqual({ id: '1' });
    expect(m.match('x://aXb(c)+/1')).toBeUndefined();
  });
});

/**
 * The regex the matcher replaced, kept here as the plain path the linear matcher must equal: `{a}` one run of
 * `[^/?#\\]`, `{+a}` one of `[^?#\\]`, greedy, then an optional query. It backtracks quadratically on a near-miss,
 * which is why the runtime no longer uses it; on short URIs it is the oracle.
 */
function regexSplit(template: UriTemplate, uri: string): UriSplit | undefined {
  let pattern = '^';
  let query = false;
  for (const part of template.parts) {
    if ('literal' in part) pattern += part.literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (part.operator === '') pattern += '([^/?#\\\\]+)';
    else if (part.operator === '+') pattern += '([^?#\\\\]+)';
    else query = true;
  }
  const groups = template.parts.filter((p) => !('literal' in p) && (p.operator === '' || p.operator === '+')).length;
  const m = new RegExp(pattern + (query ? '(?:\\?([^#]*))?$' : '$'), 's').exec(uri);
  return m ? { values: m.slice(1, groups + 1), query: m[groups + 1] } : undefined;
}

describe('compileUriTemplate: linear matching', () => {
  const templates = [
    'fx://pair/{owner}-{repo}',
    'fx://f/{name}.{ext}',
    'fx://l/{a},{b}',
    'fx://t/{+dir}/{+file}',
    'fx://m/{+dir}-{name}',
    'fx://q/{a}-{b}{?x,y}{&z}',
    'fx://{a}//{+b}',
    'fx://one/{id}',
    '{a}?{b}',
  ];
  const alphabet = ['a', '-', '/', '.', ',', '?', '#', '\\', '%2F', '%2E', '=', '&', 'x=1', 'fx://', 'pair/', 't/'];

  it('cuts a URI exactly as the greedy regex does, on every template and any URI (property)', () => {
    for (const source of templates) {
      const parsed = parseUriTemplate(source);
      if ('error' in parsed) throw new Error(parsed.error.message);
      const split = uriSplitter(parsed.template);
      const prefix = source.slice(0, source.indexOf('{'));
      fc.assert(
        fc.property(fc.boolean(), fc.array(fc.constantFrom(...alphabet), { maxLength: 24 }), (prefixed, pieces) => {
          const uri = (prefixed ? prefix : '') + pieces.join('');
          expect(split(uri), uri).toEqual(regexSplit(parsed.template, uri));
        }),
        { numRuns: 400 },
      );
    }
  });
});

describe('resources: the URI cap', () => {
  it('refuses a URI past MAX_URI_LENGTH with -32602 before any template sees it', () => {
    const uriTemplate = 'fx://pair/{owner}-{repo}';
    const resources = createResources(
      [],
      [{ uriTemplate, name: 'pair' }],
      [{ name: 'pair', uriTemplate, complete: {} }],
      {
        pair: async () => ({}),
      } as unknown as ModuleLoaders,
    );
    const longest = 'fx://pair/' + 'a'.repeat(MAX_URI_LENGTH - 12) + '-b';
    expect(longest).toHaveLength(MAX_URI_LENGTH);
    expect(resources.known(longest)).toBe(longest);
    let error: unknown;
    try {
      resources.known(longest + 'c');
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      code: -32602,
      message: `Invalid params: uri is longer than ${MAX_URI_LENGTH} characters`,
    });
  });
});
