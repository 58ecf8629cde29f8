/** Handler file names: one per tool, never a file the compiler or a test runner would treat as something else. */
import { describe, expect, it } from 'vitest';
import { handlerFileName } from '../src/core/names.js';
import { loadModel } from '../src/compile.js';
import { tempProject } from './helpers/tmp.js';

describe('handler file names', () => {
  it.each([
    ['search', 'search.ts'],
    ['x.d', 'x.d_.ts'],
    ['x.d.y', 'x.d_.y.ts'],
    // vitest and jest collect *.test.ts and *.spec.ts: a handler must not be run as a test file.
    ['notes.test', 'notes.test_.ts'],
    ['notes.Spec', 'notes.Spec_.ts'],
    ['test.notes', 'test.notes.ts'],
  ])('%s → %s', (name, file) => {
    expect(handlerFileName({ name })).toBe(file);
  });

  it('refuses two tools whose handler files would be one', () => {
    const p = tempProject({
      'toolspec.yaml': [
        'toolspec: 1',
        'server: { name: s, version: 1.0.0 }',
        'tools:',
        '  - { name: Notes.test, description: List the notes of the test suite., inputSchema: { type: object } }',
        '  - { name: notes.TEST_, description: List the notes of the other test suite., inputSchema: { type: object } }',
        '',
      ].join('\n'),
    });
    try {
      const { model, diagnostics } = loadModel('toolspec.yaml', { cwd: p.dir });
      expect(model).toBeUndefined();
      // (Their files would be Notes.test_.ts and notes.TEST_.ts: one file where case does not count.)
      expect(diagnostics.map((d) => d.message).join('\n')).toContain('tools "Notes.test" and "notes.TEST_"');
    } finally {
      p.cleanup();
    }
  });
});
