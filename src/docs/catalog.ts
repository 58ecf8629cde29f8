/**
 * `toolspec docs`: the server's catalog as one static HTML page (inline CSS and JS, nothing fetched when viewed),
 * from the model, its token report and, optionally, the changes since a revision. Pure: data in, text out.
 *
 * Every string from the spec is hostile. Markup is built only with the `markup` tag, which passes every
 * interpolated value through `escapeHtml` (the one escape function) unless it is markup built the same way; JSON
 * for the page's script goes through `scriptJson`. The page's Content-Security-Policy allows no network at all and
 * only this module's own script (by hash), so even markup that escaped the escaping could not run or fetch.
 */
import { createHash } from 'node:crypto';
import type { AuthModel, ExampleModel, PromptModel, ResourceModel, ServerModel, ToolModel } from '../pipeline/model.js';
import type { TokenReport } from '../lint/tokens.js';
import { CLASS_ORDER, formatPath, type Change, type ChangeClass } from '../diff/rules.js';
import { unicodeEscape } from '../core/visible.js';
import { plural } from '../report/text.js';
import { isObject, resolvePointer } from '../pipeline/schema/keywords.js';

export interface CatalogDiff {
  /** The old side as shown: `<rev>:<path>`. */
  old: string;
  /** The spec did not exist at the revision: everything counts as added. */
  missing: boolean;
  changes: readonly Change[];
}

export interface CatalogInput {
  model: ServerModel;
  /** countTokens(model), src/lint/tokens.ts. */
  tokens: TokenReport;
  diff?: CatalogDiff;
}

/** Text safe in HTML content and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON for the inside of a <script> element: nothing in it can close the element or break a line of JavaScript. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, unicodeEscape);
}

/** Markup: made only by `markup`, so a plain string is always text. */
class Html {
  constructor(readonly text: string) {}
}
type Part = string | number | Html | readonly Part[] | undefined | null | false;

const piece = (v: Part): string =>
  v === undefined || v === null || v === false
    ? ''
    : v instanceof Html
      ? v.text
      : Array.isArray(v)
        ? v.map(piece).join('')
        : escapeHtml(String(v as string | number));

function markup(strings: TemplateStringsArray, ...values: Part[]): Html {
  return new Html(strings.reduce((out, s, i) => out + s + (i < values.length ? piece(values[i]) : ''), ''));
}

const HINTS = [
  ['readOnlyHint', 'read-only'],
  ['destructiveHint', 'destructive'],
  ['idempotentHint', 'idempotent'],
  ['openWorldHint', 'open world'],
] as const;

/** The whole page. The same input gives the same bytes: no dates, no absolute paths. */
export function renderCatalog(input: CatalogInput): string {
  const { model, tokens, diff } = input;
  const changed = changedItems(diff?.changes ?? []);
  const cost = new Map(tokens.tools.map((t) => [t.name, t.tokens]));
  const most = Math.max(1, ...tokens.tools.map((t) => t.tokens));
  const index: { id: string; text: string }[] = [];
  /** One kind's links in the nav and its section, each item `<kind>-<i>` and in the search index; none when empty. */
  const list = <T extends Item>(kind: string, title: string, all: readonly T[], parts: (x: T) => Parts): Part[] => {
    if (!all.length) return ['', ''];
    const items = all.map((x, i) => {
      const p = parts(x);
      const def = x.definition;
      const cls = changed.get(`${kind}:${x.name}`);
      index.push({
        id: `${kind}-${i}`,
        text: [x.name, def.title, def.description, p.search].filter(Boolean).join(' ').toLowerCase(),
      });
      return markup`<article class="item ${kind}${cls ? ` changed-${cls}` : ''}" id="${kind}-${i}">
        <h3><code>${x.name}</code>${def.title ? markup` <span class="title">${def.title}</span>` : ''}</h3>
        <div class="badges">
          ${p.before}${cls && badge(`changed ${cls}`, `changed: ${cls}`)}${p.after}${scopesBadge(x.scopes, model.auth)}
        </div>
        ${p.lead}${def.description ? markup`<p class="text">${def.description}</p>` : ''}
        ${p.body}
      </article>`;
    });
    return [
      markup`<h3>${title}</h3>
        <ul>
          ${all.map((x, i) => markup`<li data-item="${kind}-${i}"><a href="#${kind}-${i}">${x.name}</a></li>`)}
        </ul>`,
      markup`<section id="${kind}s">
        <h2>${title} (${items.length})</h2>
        ${items}
      </section>`,
    ];
  };
  const lists = [
    list('tool', 'Tools', model.tools, (t) => toolParts(t, cost.get(t.name) ?? 0, most)),
    list('prompt', 'Prompts', model.prompts, promptParts),
    list('resource', 'Resources', model.resources, resourceParts),
  ];
  const { server } = model;
  const hash = createHash('sha256').update(SEARCH_SCRIPT).digest('base64');
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${hash}'`;
  const page = markup`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta http-equiv="Content-Security-Policy" content="${csp}" />
        <title>${server.title ?? server.name} ${server.version}: catalog</title>
        <style>
          ${new Html(STYLE)}
        </style>
      </head>
      <body>
        <header>
          <h1>${server.title ?? server.name} <span class="version">${server.version}</span></h1>
          <p class="meta">
            <code>${server.name}</code> · ${plural(model.tools.length, 'tool')},
            ${plural(model.prompts.length, 'prompt')}, ${plural(model.resources.length, 'resource')} · the tools take
            ${tokens.total} tokens
            (${tokens.encoding})${
              server.websiteUrl && /^https?:\/\//i.test(server.websiteUrl)
                ? markup` · <a href="${server.websiteUrl}">${server.websiteUrl}</a>`
                : ''
            }
          </p>
          ${server.description ? markup`<p class="text">${server.description}</p>` : ''}
          ${server.instructions ? folded('Instructions for the model', markup`<p class="text">${server.instructions}</p>`) : ''}
          <input
            type="search"
            id="search"
            placeholder="Filter by name or description"
            aria-label="Filter by name or description"
            autocomplete="off"
          />
          <span id="search-count" aria-live="polite"></span>
        </header>
        <div class="layout">
          <nav>${lists.map(([nav]) => nav)}</nav>
          <main>
            ${diff ? changesSection(diff) : ''}${lists.map(([, section]) => section)}
          </main>
        </div>
        <footer>
          Made by <code>toolspec docs</code> from <code>${model.specFile}</code>. Token counts are an estimate
          (${tokens.encoding}: ${tokens.models}).
        </footer>
        <script type="application/json" id="catalog-index">
          ${new Html(scriptJson(index))}
        </script>
        <script>${new Html(SEARCH_SCRIPT)}</script>
      </body>
    </html> `;
  return page.text;
}

/** The items a diff touches, by `tool:<name>`, `prompt:<name>` or `resource:<name>`: their gravest class. */
function changedItems(changes: readonly Change[]): Map<string, ChangeClass> {
  const out = new Map<string, ChangeClass>();
  for (const c of changes) {
    const key =
      c.tool !== null
        ? `tool:${c.tool}`
        : (c.segments[0] === 'prompts' || c.segments[0] === 'resources') && typeof c.segments[1] === 'string'
          ? `${c.segments[0].slice(0, -1)}:${c.segments[1]}`
          : undefined;
    if (key === undefined) continue;
    const was = out.get(key);
    if (was === undefined || CLASS_ORDER.indexOf(c.class) < CLASS_ORDER.indexOf(was)) out.set(key, c.class);
  }
  return out;
}

function changesSection(diff: CatalogDiff): Html {
  const groups = CLASS_ORDER.map((cls) => {
    const list = diff.changes.filter((c) => c.class === cls);
    if (!list.length) return '';
    // Titled by the class: Breaking, Compatible, Prompt.
    return markup`<h3 class="${cls}">${cls[0]!.toUpperCase()}${cls.slice(1)} (${list.length})</h3>
      <ul class="changes">
        ${list.map(
          (c) =>
            markup`<li class="${cls}">
              <code class="rule">${c.rule}</code> ${c.tool ? markup`<code>${c.tool}</code> ` : ''}${
                c.segments.length ? markup`<code class="path">${formatPath(c.segments)}</code> ` : ''
              }${c.detail}
              <div class="why">${c.message}</div>
            </li>`,
        )}
      </ul>`;
  });
  return markup`<section id="changes">
    <h2>Changes since <code>${diff.old}</code></h2>
    ${diff.missing ? markup`<p>The spec did not exist at that revision: everything in it is new.</p>` : ''}
    ${diff.changes.length ? groups : markup`<p>No changes.</p>`}
  </section>`;
}

function badge(kind: string, text: string, title?: string): Html {
  return markup`<span class="badge ${kind}"${title === undefined ? '' : markup` title="${title}"`}>${text}</span>`;
}

/** With the spec's `auth`: the OAuth scopes a token needs for the item (its own, else the server's). */
function scopesBadge(own: readonly string[] | undefined, auth: AuthModel | undefined): Part {
  if (!auth) return '';
  const scopes = own ?? auth.scopes;
  return scopes.length
    ? badge('scopes', `scopes: ${scopes.join(' ')}`, 'the OAuth scopes a token needs')
    : badge('scopes', 'any token', 'a valid token, no scope');
}

type Item = { name: string; definition: { title?: string; description?: string }; scopes?: string[] };

/**
 * What an item of one kind shows of its own, besides its name, title, description and the change's and the scopes'
 * badges: badges before and after the change's, a part above the description, the rest; and more to search by.
 */
interface Parts {
  before?: Part;
  after?: Part;
  lead?: Part;
  body: Part;
  search?: string;
}

function toolParts(tool: ToolModel, tokens: number, most: number): Parts {
  const def = tool.definition;
  const hints = HINTS.filter(([k]) => typeof def.annotations?.[k] === 'boolean').map(([k, label]) => {
    const on = def.annotations![k] === true;
    return badge(`hint ${on ? 'on' : 'off'}`, on ? label : `not ${label}`, `${k}: ${on}`);
  });
  const width = ((tokens / most) * 100).toFixed(1);
  return {
    before: tool.deprecated === undefined ? '' : badge('deprecated', 'deprecated', tool.deprecated),
    after: [hints, tool.task ? badge('task', `task: ${tool.task}`) : ''],
    body: markup`<div class="tokens" title="name, description and inputSchema as a model sees them">
        <span class="bar"><span style="width:${width}%"></span></span> ${tokens} tokens
      </div>
      ${argumentsTable(tool.input.schema)}
      ${tool.output ? folded('Output schema', markup`<pre>${JSON.stringify(tool.output.schema, null, 2)}</pre>`) : ''}
      ${examples(tool.examples, called)}`,
  };
}

const promptParts = (prompt: PromptModel): Parts => ({
  body: [
    prompt.arguments.length ? namedTable('argument', prompt.arguments) : markup`<p class="none">No arguments.</p>`,
    examples(prompt.examples, called),
  ],
});

function resourceParts(resource: ResourceModel): Parts {
  const variables = resource.variables.map((v) => ({ ...v, required: v.operator !== '?' && v.operator !== '&' }));
  return {
    before: [
      badge('kind', resource.kind === 'template' ? 'resource template' : 'resource'),
      resource.definition.mimeType ? badge('mime', resource.definition.mimeType) : '',
    ],
    lead: markup`<p class="uri"><code>${resource.uri}</code></p>`,
    body: [
      variables.length ? namedTable('variable', variables) : '',
      examples(resource.examples, (e) => markup`<code>${e.uri}</code>`),
    ],
    search: resource.uri,
  };
}

/** `<details>`: folded under its summary. */
function folded(summary: Part, body: Part): Html {
  return markup`<details>
    <summary>${summary}</summary>
    ${body}
  </details>`;
}

/** The examples, folded: each one's name, then what `shown` makes of it. */
function examples<E extends { name?: string }>(list: readonly E[], shown: (e: E) => Part): Part {
  const items = list.map((e) => markup`<li>${e.name ? markup`<span>${e.name}</span> ` : ''}${shown(e)}</li>`);
  return list.length ? folded(`Examples (${list.length})`, markup`<ul class="examples">${items}</ul>`) : '';
}

/** A tool's or a prompt's example: its arguments, and whether they are to be rejected. */
const called = (e: Omit<ExampleModel, 'expect'>) =>
  markup`${e.invalid ? badge('invalid', 'rejected') : ''}
    <pre>${JSON.stringify(e.arguments, null, 2)}</pre>`;

/** The argument tables: a header row of `headings`, then `rows`. */
function table(headings: readonly string[], rows: Part): Html {
  return markup`<table class="args">
    <thead>
      <tr>
        ${headings.map((h) => markup`<th>${h}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

function argumentsTable(schema: Record<string, unknown>): Html {
  const props = record(schema['properties']);
  const names = Object.keys(props ?? {});
  if (!props || !names.length) return markup`<p class="none">No arguments.</p>`;
  const required = new Set(Array.isArray(schema['required']) ? schema['required'].filter(isString) : []);
  const rows = names.map((name) => {
    const own = record(props[name]) ?? {};
    const target = resolve(schema, own);
    const description = str(own['description']) ?? str(target['description']);
    const dflt = 'default' in own ? own['default'] : target['default'];
    // A short enum is the type itself (typeText); a long one is listed here.
    const values = Array.isArray(target['enum']) && target['enum'].length > ENUM_IN_TYPE ? target['enum'] : [];
    return markup`<tr>
      <td><code>${name}</code></td>
      <td><code>${typeText(schema, own, 0)}</code></td>
      <td>${required.has(name) ? badge('required', 'required') : 'optional'}</td>
      <td>${dflt === undefined ? '' : markup`<code>${JSON.stringify(dflt)}</code>`}</td>
      <td>
        ${
          values.length
            ? markup`<div class="enum">one of ${values.map((v) => markup`<code>${JSON.stringify(v)}</code> `)}</div>`
            : ''
        }${description ? markup`<span class="desc">${description}</span>` : ''}
      </td>
    </tr>`;
  });
  return table(['argument', 'type', '', 'default', 'description'], rows);
}

/** Enums up to this many values are shown as the type (`"a" | "b"`). */
const ENUM_IN_TYPE = 6;
const isString = (v: unknown): v is string => typeof v === 'string';
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const record = (v: unknown) => (isObject(v) ? v : undefined);

/** A local `$ref` (`#/$defs/…`, `#/definitions/…`) followed once; anything else as it is. */
function resolve(root: Record<string, unknown>, s: Record<string, unknown>): Record<string, unknown> {
  const ref = str(s['$ref']);
  return (ref?.startsWith('#/') && record(resolvePointer(root, ref))) || s;
}

/** A schema's type in a few words: `string (uri)`, `integer[]`, `{ slug: string, limit?: integer }`, `"a" | "b"`. */
function typeText(root: Record<string, unknown>, own: Record<string, unknown>, depth: number): string {
  const s = resolve(root, own);
  if (depth > 2) return '…';
  if ('const' in s) return JSON.stringify(s['const']);
  if (Array.isArray(s['enum']) && s['enum'].length <= ENUM_IN_TYPE)
    return s['enum'].map((v) => JSON.stringify(v)).join(' | ');
  const alternatives = s['anyOf'] ?? s['oneOf'];
  if (Array.isArray(alternatives))
    return alternatives.map((a) => typeText(root, record(a) ?? {}, depth + 1)).join(' | ');
  const type = Array.isArray(s['type']) ? s['type'].filter(isString).join(' | ') : str(s['type']);
  if (type === 'array') {
    const items = record(s['items']);
    const inner = items ? typeText(root, items, depth + 1) : 'unknown';
    return /[ |]/.test(inner) ? `(${inner})[]` : `${inner}[]`;
  }
  const props = record(s['properties']);
  if ((type === 'object' || (!type && props)) && props && Object.keys(props).length) {
    if (depth >= 2) return 'object';
    const req = new Set(Array.isArray(s['required']) ? s['required'].filter(isString) : []);
    const fields = Object.keys(props).map(
      (k) => `${k}${req.has(k) ? '' : '?'}: ${typeText(root, record(props[k]) ?? {}, depth + 1)}`,
    );
    return `{ ${fields.join(', ')} }`;
  }
  const format = str(s['format']);
  return `${type ?? 'any'}${format ? ` (${format})` : ''}`;
}

/** A prompt's arguments or a template's variables: name, required or not, the values it completes, description. */
function namedTable(heading: string, rows: PromptModel['arguments']): Html {
  return table(
    [heading, '', 'description'],
    rows.map(
      (r) =>
        markup`<tr>
          <td><code>${r.name}</code></td>
          <td>${r.required ? badge('required', 'required') : 'optional'}</td>
          <td>
            ${
              Array.isArray(r.complete)
                ? markup`<div class="enum">
                    completes ${r.complete.map((v) => markup`<code>${v}</code> `)}
                  </div>`
                : ''
            }${r.description ? markup`<span class="desc">${r.description}</span>` : ''}
          </td>
        </tr>`,
    ),
  );
}

/** The filter: every word typed must be in an item's name, title or description (or a resource's URI). */
const SEARCH_SCRIPT = `
(function () {
  var index = JSON.parse(document.getElementById('catalog-index').textContent);
  var box = document.getElementById('search');
  var shown = document.getElementById('search-count');
  function filter() {
    var words = box.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var n = 0;
    index.forEach(function (item) {
      var hit = words.every(function (w) { return item.text.indexOf(w) !== -1; });
      if (hit) n++;
      document.getElementById(item.id).hidden = !hit;
      document.querySelectorAll('[data-item="' + item.id + '"]').forEach(function (e) { e.hidden = !hit; });
    });
    shown.textContent = words.length ? n + ' of ' + index.length + ' shown' : '';
  }
  box.addEventListener('input', filter);
  filter();
})();
`;

const STYLE = `
:root { color-scheme: light dark; --fg: #1d2330; --muted: #5d6675; --bg: #fbfbfd; --card: #fff; --line: #dfe3ea;
  --accent: #3366cc; --red: #b42318; --green: #1a7f37; --amber: #9a6700; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ef; --muted: #9aa3b2; --bg: #14171c; --card: #1c2027;
  --line: #2e343e; --accent: #7aa2f7; --red: #f97066; --green: #56d364; --amber: #e3b341; } }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 24px 32px 16px; border-bottom: 1px solid var(--line); background: var(--card); }
h1 { margin: 0 0 4px; font-size: 26px; }
h1 .version, .meta, .none, footer, .why, .title { color: var(--muted); font-weight: normal; }
.meta { margin: 0 0 8px; }
code, pre { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.text { white-space: pre-wrap; margin: 8px 0; }
#search { margin-top: 8px; width: min(480px, 100%); padding: 8px 12px; font: inherit; border: 1px solid var(--line);
  border-radius: 6px; background: var(--bg); color: inherit; }
#search-count { margin-left: 12px; color: var(--muted); }
.layout { display: flex; gap: 32px; padding: 0 32px; }
nav { flex: 0 0 200px; position: sticky; top: 0; align-self: flex-start; max-height: 100vh; overflow: auto; padding: 16px 0; }
nav h3 { font-size: 12px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 16px 0 4px; }
nav ul { list-style: none; margin: 0; padding: 0; }
nav a { color: var(--accent); text-decoration: none; font: 13px ui-monospace, monospace; word-break: break-all; }
main { flex: 1; min-width: 0; padding-bottom: 32px; }
h2 { font-size: 18px; margin: 24px 0 8px; }
.item { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 18px; margin: 12px 0; }
.item h3 { margin: 0; font-size: 16px; }
.item h3 code { font-size: 15px; }
.changed-breaking { border-left: 4px solid var(--red); }
.changed-compatible { border-left: 4px solid var(--green); }
.changed-prompt { border-left: 4px solid var(--amber); }
.badges { margin: 6px 0 0; display: flex; flex-wrap: wrap; gap: 6px; }
.badge { font-size: 12px; padding: 1px 8px; border-radius: 10px; border: 1px solid var(--line); color: var(--muted); }
.badge.on { color: var(--accent); border-color: var(--accent); }
.badge.deprecated, .badge.breaking { color: var(--red); border-color: var(--red); }
.badge.compatible { color: var(--green); border-color: var(--green); }
.badge.prompt { color: var(--amber); border-color: var(--amber); }
.badge.required { color: var(--fg); }
.tokens { display: flex; align-items: center; gap: 8px; font-size: 12px; color: var(--muted); margin: 6px 0; }
.bar { display: inline-block; width: 160px; height: 6px; background: var(--line); border-radius: 3px; overflow: hidden; }
.bar span { display: block; height: 100%; background: var(--accent); }
table.args { border-collapse: collapse; width: 100%; margin: 8px 0; font-size: 14px; }
.args th { text-align: left; font-weight: 600; color: var(--muted); font-size: 12px; border-bottom: 1px solid var(--line); padding: 4px 8px; }
.args td { border-bottom: 1px solid var(--line); padding: 6px 8px; vertical-align: top; }
.desc { white-space: pre-wrap; }
.enum { color: var(--muted); }
details { margin: 6px 0; }
summary { cursor: pointer; color: var(--accent); }
pre { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; overflow: auto; max-height: 420px; }
.examples { list-style: none; padding: 0; }
#changes h3.breaking { color: var(--red); } #changes h3.compatible { color: var(--green); } #changes h3.prompt { color: var(--amber); }
.changes { padding-left: 18px; }
.changes li { margin: 4px 0; }
.uri code { word-break: break-all; }
footer { padding: 16px 32px 32px; font-size: 13px; border-top: 1px solid var(--line); }
`;
