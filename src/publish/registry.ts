/**
 * server.json, the server's entry in the official MCP Registry (spec `server.registry`), from the server block and
 * package.json, checked against the registry's schema of 2025-12-11 (schema/registry/server.schema.json, shipped
 * with toolspec: nothing is fetched). Every violation is a diagnostic at the spec line (or package.json's) it
 * comes from.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type addFormats from 'ajv-formats';
import { diagnostic, type Diagnostic, type Span } from '../core/diagnostics.js';
import { displayPath, packageRoot } from '../core/paths.js';
import type { JsonPath } from '../pipeline/load/source.js';
import { isObject } from '../pipeline/schema/keywords.js';
import type { ServerModel } from '../pipeline/model.js';

export const REGISTRY_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
/** The registry's key for what a publisher adds to its entry. */
const PUBLISHER_META = 'io.modelcontextprotocol.registry/publisher-provided';
/** What a server.json that toolspec wrote contains, and one written by hand does not. */
export const SERVER_JSON_MARK = '"generator": "toolspec"';
/** The registry's own limit on a description. */
const DESCRIPTION_CHARS = 100;
const PACKAGE_JSON_BYTES = 1024 * 1024;

/** The fields of package.json that server.json takes. */
type PackageJson = Partial<Record<'name' | 'version' | 'private' | 'mcpName' | 'repository', unknown>>;

/** server.json's text, or the diagnostics that say why it cannot be written. */
export function serverJson(
  model: ServerModel,
  cwd: string,
  locate: (at: JsonPath) => Span,
): { text: string } | { diagnostics: Diagnostic[] } {
  const registry = model.registry!;
  const diagnostics: Diagnostic[] = [];
  const pkgFile = path.join(model.rootDir, 'package.json');
  const pkgShown = displayPath(pkgFile, cwd);
  const pkg = readPackageJson(pkgFile);
  const pkgSpan = (key: string): Span => {
    const line = typeof pkg.text === 'string' ? lineOfKey(pkg.text, key) : 1;
    return { file: pkgShown, line, column: 1, endLine: line, endColumn: 1 };
  };
  const problem = (span: Span, message: string, hint: string) =>
    diagnostics.push(diagnostic('TS052', span, message, hint));
  if (pkg.error) problem(pkgSpan(''), `${pkgShown} ${pkg.error}`, 'server.json takes the npm package from it');
  const json = pkg.json ?? {};
  if (json.mcpName !== registry.name)
    problem(
      pkgSpan('mcpName'),
      json.mcpName === undefined
        ? `${pkgShown} has no mcpName; the registry checks it against server.registry.name`
        : `${pkgShown} has mcpName ${JSON.stringify(json.mcpName)}, server.registry.name is "${registry.name}"`,
      `set "mcpName": "${registry.name}" in ${pkgShown}`,
    );
  if (typeof json.version === 'string' && json.version !== model.server.version)
    problem(
      locate(['server', 'version']),
      `server.version is "${model.server.version}", ${pkgShown} says "${json.version}"`,
      'the registry lists one version of the server and of its package: make them the same',
    );
  const description = registry.description ?? model.server.description;
  if (description === undefined)
    problem(
      locate(['server']),
      'server.registry needs a description',
      `set server.description or server.registry.description (at most ${DESCRIPTION_CHARS} characters)`,
    );
  const repository = registry.repository ?? repositoryUrl(json.repository);
  const entry = {
    $schema: REGISTRY_SCHEMA_URL,
    name: registry.name,
    ...(model.server.title !== undefined ? { title: model.server.title } : {}),
    description: description ?? '',
    version: model.server.version,
    ...(model.server.websiteUrl !== undefined ? { websiteUrl: model.server.websiteUrl } : {}),
    ...(repository ? { repository: { url: repository, source: sourceOf(repository) } } : {}),
    // A private package is not on npm: the entry lists no package to install then.
    ...(typeof json.name === 'string' && json.private !== true
      ? {
          packages: [
            {
              registryType: 'npm',
              identifier: json.name,
              version: typeof json.version === 'string' ? json.version : model.server.version,
              transport: { type: 'stdio' },
            },
          ],
        }
      : {}),
    ...(registry.remote ? { remotes: [{ type: 'streamable-http', url: registry.remote }] } : {}),
    // Says who wrote the file: generate replaces a server.json only when it carries this.
    _meta: { [PUBLISHER_META]: { generator: 'toolspec' } },
  };
  if (!diagnostics.length) {
    const validate = registryValidator();
    if (!validate(entry)) {
      for (const error of validate.errors ?? []) {
        const { at, field } = placeOf(error, registry.description !== undefined);
        problem(
          at === 'package.json' ? pkgSpan(field) : locate(at),
          `server.json ${error.instancePath.slice(1) || 'entry'} ${error.message ?? 'is not valid'} (MCP Registry schema 2025-12-11)`,
          `the registry would refuse server.json: fix ${at === 'package.json' ? `${pkgShown}'s ${field}` : at.join('.')}`,
        );
      }
    }
  }
  return diagnostics.length ? { diagnostics } : { text: `${JSON.stringify(entry, null, 2)}\n` };
}

/** Where a schema violation comes from: the spec field (or package.json's) that gave the value. */
function placeOf(error: ErrorObject, ownDescription: boolean): { at: JsonPath | 'package.json'; field: string } {
  const [top = ''] = error.instancePath.split('/').slice(1);
  const spec: Record<string, JsonPath> = {
    name: ['server', 'registry', 'name'],
    title: ['server', 'title'],
    description: ownDescription ? ['server', 'registry', 'description'] : ['server', 'description'],
    version: ['server', 'version'],
    websiteUrl: ['server', 'websiteUrl'],
    repository: ['server', 'registry', 'repository'],
    remotes: ['server', 'registry', 'remote'],
  };
  if (top === 'packages')
    return { at: 'package.json', field: error.instancePath.endsWith('/version') ? 'version' : 'name' };
  return { at: spec[top] ?? ['server', 'registry'], field: top };
}

let compiled: ValidateFunction | undefined;

function registryValidator(): ValidateFunction {
  if (compiled) return compiled;
  const schema = JSON.parse(
    fs.readFileSync(path.join(packageRoot, 'schema', 'registry', 'server.schema.json'), 'utf8'),
  ) as object;
  // The schema uses OpenAPI's `example` and `discriminator` beside JSON Schema: not strict.
  // Required here, not imported: a project without server.json never loads ajv for it.
  const require = createRequire(import.meta.url);
  const ajv = new (require('ajv') as typeof Ajv).default({ allErrors: true, strict: false });
  (require('ajv-formats') as typeof addFormats).default(ajv);
  compiled = ajv.compile(schema);
  return compiled;
}

function readPackageJson(file: string): { json?: PackageJson; text?: string; error?: string } {
  let text: string;
  try {
    const stat = fs.lstatSync(file);
    if (!stat.isFile()) return { error: 'is not a plain file' };
    if (stat.size > PACKAGE_JSON_BYTES) return { error: 'is larger than 1 MiB' };
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { error: 'cannot be read' };
  }
  try {
    const json = JSON.parse(text) as unknown;
    return isObject(json) ? { json, text } : { text, error: 'is not a JSON object' };
  } catch {
    return { text, error: 'is not valid JSON' };
  }
}

/** The line of a top-level key in package.json's text (1 when it is not there: the place to add it). */
function lineOfKey(text: string, key: string): number {
  if (!key) return 1;
  const at = text.search(new RegExp(`^[ \\t]*"${key}"[ \\t]*:`, 'm'));
  return at < 0 ? 1 : text.slice(0, at).split('\n').length;
}

function repositoryUrl(repository: unknown): string | undefined {
  const url = typeof repository === 'string' ? repository : isObject(repository) ? repository['url'] : undefined;
  if (typeof url !== 'string') return undefined;
  // npm's forms: git+https://…, ….git, github:owner/name.
  const github = /^github:([^/]+\/[^/]+)$/.exec(url);
  if (github) return `https://github.com/${github[1]}`;
  return url.replace(/^git\+/, '').replace(/\.git$/, '');
}

/** The repository's host by its name: github.com → github, gitlab.com → gitlab, codeberg.org → codeberg. */
function sourceOf(url: string): string {
  const host = /^https?:\/\/([^/]+)/.exec(url)?.[1]?.toLowerCase() ?? '';
  return host.split('.').slice(-2, -1)[0] || 'git';
}
