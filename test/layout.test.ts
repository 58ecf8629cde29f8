/** The layout of generated code: the indentation of json-schema-to-typescript's unformatted output. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { indentByNesting } from '../src/emit/layout.js';
import { generateSpec } from './helpers/generate.js';

describe('indentByNesting', () => {
  it('counts brackets in code only: not in comments, strings or line comments', () => {
    const flat = [
      'export interface A {',
      '/**',
      '* Ends in a brace {',
      '* and a bracket [ (',
      '*/',
      'x?: "{[(";',
      "y: 'a\\'{';",
      'z: { // {',
      'n: (string | number)[];',
      '};',
      '}',
      'export type B = string;',
    ].join('\n');
    expect(indentByNesting(flat).split('\n')).toEqual([
      'export interface A {',
      '  /**',
      '   * Ends in a brace {',
      '   * and a bracket [ (',
      '   */',
      '  x?: "{[(";',
      "  y: 'a\\'{';",
      '  z: { // {',
      '    n: (string | number)[];',
      '  };',
      '}',
      'export type B = string;',
    ]);
  });

  it('opens one level for a line that ends in an opening bracket, and puts a closing line at the level it closes', () => {
    expect(indentByNesting('a: ({\nb: 1\n})[];\nc: [\n1\n]')).toBe('a: ({\n  b: 1\n})[];\nc: [\n  1\n]');
  });
});

describe('types.ts', () => {
  it('indents the members after a description line that ends in "{" at their own level', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolspec-layout-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'toolspec.yaml'),
        `toolspec: 1
server: { name: s, version: 1.0.0 }
tools:
  - name: find
    description: Find things.
    inputSchema:
      type: object
      properties:
        filter: { type: string, description: "A JSON filter, written as {" }
        limit: { type: integer, description: "At most this many [" }
        page: { type: integer }
`,
      );
      const files = await generateSpec('toolspec.yaml', dir);
      const types = files.find((f) => f.path.endsWith('/types.ts'))!.contents;
      const body = types.slice(types.indexOf('export interface FindInput {'));
      expect(body.slice(0, body.indexOf('\n}\n') + 3)).toBe(
        [
          'export interface FindInput {',
          '  /**',
          '   * A JSON filter, written as {',
          '   */',
          '  filter?: string',
          '  /**',
          '   * At most this many [',
          '   */',
          '  limit?: number',
          '  page?: number',
          '  [k: string]: unknown | undefined',
          '}',
          '',
        ].join('\n'),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
