/**
 * From a server's listing to spec data (src/import/build.ts): what import leaves out of prompts, resources and
 * templates, said about the right kind of thing, so that one bad entry never costs the others.
 */
import { describe, expect, it } from 'vitest';
import { buildSpec } from '../src/import/build.js';

const build = (extra: Record<string, unknown[]>) =>
  buildSpec({
    listing: {
      declaresTools: true,
      tools: [{ name: 'ping', inputSchema: { type: 'object' } }],
      pageSizes: [1],
      ...extra,
    },
    fallbackName: 'server',
  });

describe('import: prompts, resources and templates it cannot keep', () => {
  it('leaves out one with a text longer than a spec may hold, and keeps the others', () => {
    const built = build({
      prompts: [{ name: 'long', description: 'x'.repeat(100_001) }, { name: 'short' }],
      resources: [
        { uri: `x://${'a'.repeat(200_000)}`, name: 'huge' },
        { uri: 'x://fine', name: 'fine' },
      ],
    });
    expect(built.data.prompts).toEqual([{ name: 'short' }]);
    expect(built.data.resources).toEqual([{ uri: 'x://fine', name: 'fine' }]);
    expect(built.notes.map((n) => `${n.about}: ${n.message}`)).toEqual([
      'prompt "long": left out: its description is longer than 100000 characters, more than a spec may hold',
      'resource "huge": left out: its uri is longer than 100000 characters, more than a spec may hold',
    ]);
    expect(built.notes.every((n) => n.tool === undefined && n.severity === 'warning')).toBe(true);
  });

  it('tells a URI without a scheme from one with white space or a control character in it', () => {
    const built = build({
      resources: [
        { uri: 'x://c\u2028d', name: 'separator' },
        { uri: 'x://a b', name: 'space' },
        { uri: 'no-scheme', name: 'bare' },
      ],
      resourceTemplates: [{ uriTemplate: 'x://{id}\u0007', name: 'bell' }, 'not an object'],
    });
    expect(built.data.resources ?? []).toEqual([]);
    expect(built.notes.map((n) => `${n.about}: ${n.message}`)).toEqual([
      'resource "separator": left out: its uri "x://c\u2028d" holds white space or a control character',
      'resource "space": left out: its uri "x://a b" holds white space or a control character',
      'resource "bare": left out: its uri "no-scheme" has no scheme',
      'resource template "bell": left out: its uriTemplate "x://{id}\\u0007" holds white space or a control character',
      'resource template #2: left out: it is not an object',
    ]);
  });
});
