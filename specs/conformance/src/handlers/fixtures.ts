/** Content the conformance suite's scenarios expect, shared by the fixture tools. */

/** A 1x1 red PNG. */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A minimal WAV file. */
export const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

export const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The form the suite's name questions use. */
export const NAME_FORM = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
} as const;
