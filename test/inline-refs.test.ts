/**
 * `options.refs: inline` (the default) sends each schema with its `$ref`s replaced by their targets and the
 * keywords beside a `$ref` merged in. What it must hold: the inlined schema accepts exactly the data the bundled
 * one accepts (a property over the schema property test's random schemas and values, judged by ajv), and the
 * common case reaches clients as one plain schema, `type`, `description` and `default` in sight.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inlineRefs } from '../src/pipeline/schema/forms.js';
import { seed } from './fuzz/config.js';
import { specArbitrary } from './fuzz/schema-arbitrary.js';
import { DRAFT_07_URI, type SchemaObject } from './fuzz/schema-pools.js';
import { referenceSchema } from './fuzz/schema-values.js';

const options = { strict: false, validateSchema: false, allErrors: true, logger: false as const };
const ajv = { draft07: new Ajv.default(options), current: new Ajv2020.default(options) };
addFormats.default(ajv.draft07);
addFormats.default(ajv.current);
const compile = (schema: SchemaObject): ValidateFunction =>
  (schema['$schema'] === DRAFT_07_URI ? ajv.draft07 : ajv.current).compile(schema);

/** Whether the validator accepts the value; a validator that throws accepts nothing. */
const accepts = (validate: ValidateFunction, value: unknown): boolean => {
  try {
    return validate(structuredClone(value)) === true;
  } catch {
    return false;
  }
};

describe('inlineRefs', () => {
  it('accepts exactly what the bundled schema accepts (random schemas, values and near misses)', () => {
    let compared = 0;
    fc.assert(
      fc.property(specArbitrary(), (spec) => {
        for (const tool of spec.tools) {
          const sides = [
            [tool.inputSchema, tool.inputValues],
            [tool.outputSchema, tool.outputValues],
          ] as const;
          for (const [schema, values] of sides) {
            if (!schema) continue;
            const bundled = JSON.parse(JSON.stringify(referenceSchema(schema, spec.sharedDefs))) as SchemaObject;
            const inlined = inlineRefs(bundled) as SchemaObject;
            const [before, after] = [compile(bundled), compile(inlined)];
            for (const value of values) {
              const json: unknown = value === undefined ? {} : JSON.parse(JSON.stringify(value));
              compared++;
              expect(accepts(after, json), `${JSON.stringify(json)}\n${JSON.stringify(inlined)}`).toBe(
                accepts(before, json),
              );
            }
          }
        }
      }),
      { seed, numRuns: 80 },
    );
    expect(compared).toBeGreaterThan(500);
  });

  it('merges the keywords beside a $ref into the target: type, description and default stay in sight', () => {
    const schema = {
      type: 'object',
      properties: {
        priority: { $ref: '#/$defs/Priority', description: 'How urgent.', default: 3 },
        due: { $ref: '#/$defs/Day', type: 'string' },
      },
      $defs: {
        Priority: { type: 'integer', minimum: 1, maximum: 5, description: 'A priority.' },
        Day: { type: 'string', format: 'date' },
      },
    };
    expect(inlineRefs(schema)).toEqual({
      type: 'object',
      properties: {
        priority: { type: 'integer', minimum: 1, maximum: 5, description: 'How urgent.', default: 3 },
        due: { type: 'string', format: 'date' },
      },
    });
  });

  it('a root $ref becomes the plain object it names', () => {
    const schema = {
      $ref: '#/$defs/Note',
      $defs: { Note: { type: 'object', properties: { id: { type: 'string' } } } },
    };
    expect(inlineRefs(schema)).toEqual({ type: 'object', properties: { id: { type: 'string' } } });
  });

  it('keeps allOf where a merge would change what is valid', () => {
    const target = { type: 'object', properties: { x: { type: 'number' } } };
    // additionalProperties reads its neighbour properties: merged, it would allow x.
    expect(inlineRefs({ $ref: '#/$defs/P', additionalProperties: false, $defs: { P: target } })).toEqual({
      additionalProperties: false,
      allOf: [target],
    });
    // The same keyword with another value on each side: both must hold.
    expect(inlineRefs({ $ref: '#/$defs/S', maxLength: 3, $defs: { S: { type: 'string', maxLength: 5 } } })).toEqual({
      maxLength: 3,
      allOf: [{ type: 'string', maxLength: 5 }],
    });
  });

  it('keeps a recursive $ref, with the $defs it needs', () => {
    const tree = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/Tree' } } } };
    expect(inlineRefs({ $ref: '#/$defs/Tree', $defs: { Tree: tree } })).toEqual({
      $ref: '#/$defs/Tree',
      $defs: { Tree: tree },
    });
  });
});
