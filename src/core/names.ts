/** TypeScript names for things named in the spec. One place decides them, so collisions are found in one place. */

/** "search_docs" → "SearchDocs", "get.user-v2" → "GetUserV2"; undefined when the name has no letter or digit. */
export function pascalCase(name: string): string | undefined {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  if (!words.length) return undefined;
  // A letter after a digit is upper-cased too, as json-schema-to-typescript does with the names it is given.
  const joined = words
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')
    .replace(/([0-9])([a-z])/g, (_, d: string, c: string) => d + c.toUpperCase());
  return /^[0-9]/.test(joined) ? `Tool${joined}` : joined;
}

/** The handler module of a tool, in the handlers folder. */
export function handlerFileName(tool: { name: string }): string {
  // `x.d.ts` and `x.d.y.ts` would be declaration files, which the compiler never builds into JavaScript; `x.test.ts`
  // and `x.spec.ts` test files, which test runners (vitest, jest) collect and run.
  return `${tool.name.replace(/\.d(?=\.|$)/gi, (m) => `${m}_`).replace(/\.(test|spec)$/i, (m) => `${m}_`)}.ts`;
}
