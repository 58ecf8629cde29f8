/**
 * The raw material of the schema property test's arbitraries: schema types, small helpers, and pools of names,
 * texts, patterns, formats and JSON values chosen to reach the corners of generated code (quoting, escaping,
 * JSON-pointer escapes, inherited member names, formats that pass and fail).
 */
import fc from 'fast-check';

export type Dialect = '2020-12' | 'draft-07';
export type SchemaObject = { [keyword: string]: unknown };
export type Schema = boolean | SchemaObject;

export const DRAFT_07_URI = 'http://json-schema.org/draft-07/schema#';
export const DRAFT_2020_URI = 'https://json-schema.org/draft/2020-12/schema';

/** An object built from entries without ever touching a prototype (a key may be "__proto__"). */
export function fromEntries(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries)
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/** `arb` one time in `1 + absent`, otherwise undefined (which shrinks to absent). */
export function maybe<T>(arb: fc.Arbitrary<T>, absent = 2): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: absent, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
}

/** A record of optional fields, with the absent ones left out (not set to undefined). */
export function fields(model: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(model).map((r) => fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)));
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Text that tends to break generated code when it is not escaped: comment ends, quotes, template holes, U+2028. */
export const HOSTILE = [
  '*/',
  '/* x */',
  '`',
  '${x}',
  "it's",
  '"quoted"',
  'back\\slash',
  'line\u2028sep',
  'a\nb',
  '</script>',
  '@type {any}',
  'ünï 😀',
  '\t',
];
export const hostileText = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.tuple(fc.string({ maxLength: 6 }), fc.constantFrom(...HOSTILE)).map(([a, b]) => a + b),
);

/** Property names: identifiers, reserved words, names that need quoting or JSON-pointer escaping. */
export const PROPERTY_NAMES = [
  'a',
  'b',
  'id',
  'name',
  'tags',
  'x-y',
  'a.b',
  'a/b',
  'c~d',
  'with space',
  '"q"',
  "it's",
  '*/',
  '${x}',
  '0',
  '1',
  'constructor',
  'toString',
  'class',
  'default',
  'ünï',
  '日本',
  '',
];
export const propertyName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...PROPERTY_NAMES) },
  { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 6 }) },
);

/** Patterns valid with the `u` flag (ajv compiles them so), and for which fc.stringMatching can build matches. */
export const PATTERNS = [
  '^a',
  'b$',
  '^[a-z]+$',
  '^\\d+$',
  '^x-',
  '[0-9]',
  '^(foo|bar)$',
  '^.{2,4}$',
  'é',
  '^\\p{Lu}',
  '^[^a-z]*$',
];

/** Formats toolspec knows, with strings that pass and strings that fail them. */
export const STRING_FORMAT_SAMPLES: Record<string, string[]> = {
  date: ['2024-02-29', '2023-02-29', '2024-13-01', '20240101'],
  time: ['12:34:56Z', '12:34:56.789+01:00', '25:00:00Z', '12:34:56'],
  'date-time': ['2024-01-01T00:00:00Z', '2024-01-01t00:00:00z', '2024-01-01 00:00:00Z', '2024-01-01T00:00:00'],
  'iso-time': ['12:34:56', '12:34:56Z', '24:00:00'],
  'iso-date-time': ['2024-01-01T00:00:00', '2024-01-01T00:00:00+02:00', '2024-01-01'],
  duration: ['P1D', 'PT1H30M', 'P1Y2M3DT4H5M6S', 'P', '1D'],
  uri: ['https://example.com/a?b#c', 'urn:isbn:0451450523', 'relative/path', 'http://[::1]:80/'],
  'uri-reference': ['../a', '#frag', 'http://x y'],
  'uri-template': ['/users/{id}', '/x/{', 'http://e.com/{?q,lang}'],
  url: ['https://example.com', 'ftp://x.y/z', 'example.com'],
  email: ['a@b.co', 'a@b', '@b.co', 'first.last+tag@example.org'],
  hostname: ['example.com', '-bad.com', `${'a'.repeat(64)}.com`, 'localhost'],
  ipv4: ['127.0.0.1', '256.0.0.1', '1.2.3'],
  ipv6: ['::1', '2001:db8::1', '1:2:3:4:5:6:7:8:9', '::ffff:1.2.3.4'],
  regex: ['^a+$', '(', '[a-z]'],
  uuid: [
    '123e4567-e89b-12d3-a456-426614174000',
    '123e4567e89b12d3a456426614174000',
    'urn:uuid:123e4567-e89b-12d3-a456-426614174000',
  ],
  'json-pointer': ['', '/a/b', '/a~1b', 'a', '/a~2'],
  'json-pointer-uri-fragment': ['#', '#/a%20b', '/a'],
  'relative-json-pointer': ['0', '1/a', '0#', '-1'],
  byte: ['aGVsbG8=', 'aGVsbG8', '!!'],
  password: ['hunter2'],
  binary: ['\u0000\u00ff'],
};
export const NUMBER_FORMATS = ['int32', 'int64', 'float', 'double'];
export const NUMBER_FORMAT_SAMPLES = [0, 2147483647, 2147483648, -2147483649, 1.5, 1e300, 2 ** 53, -(2 ** 63)];

/** Small JSON values: what enum, const and random values are made of. */
const scalar = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1, 1.5, -0.5, 2 ** 31, '', 'a', 'b', 'A', '1', 'é', '😀', 'null'),
  fc.integer({ min: -100, max: 100 }),
  fc.string({ maxLength: 5 }),
);
export const smallJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
  {
    weight: 1,
    arbitrary: fc.uniqueArray(fc.tuple(propertyName, scalar), { maxLength: 3, selector: (e) => e[0] }).map(fromEntries),
  },
);

export const smallNumber = fc.oneof(
  fc.integer({ min: -10, max: 10 }),
  fc.constantFrom(-0.5, 0.5, 1.5, 2 ** 31 - 1, -(2 ** 31), 1e9, 2 ** 53),
);
