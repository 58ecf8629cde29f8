// The repository's own code: eslint's and typescript-eslint's recommended rules (the compiler's strict checks and
// scripts/layers.mjs cover types and layering; prettier covers layout).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'test/fixtures/',
      'test/.tmp/',
      'test/conformance/',
      'bench/.work/',
      'templates/init/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // `_name` marks what is left out on purpose (destructuring away $schema, an unused parameter of a signature).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // Control characters are what several checks look for (raw NUL, terminal escapes in specs).
      'no-control-regex': 'off',
    },
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        performance: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        fetch: 'readonly',
        Request: 'readonly',
        Response: 'readonly',
        Headers: 'readonly',
        crypto: 'readonly',
        setImmediate: 'readonly',
        NodeJS: 'readonly',
      },
    },
  },
);
