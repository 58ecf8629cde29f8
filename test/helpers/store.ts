/** A cache in memory, as generate's is on disk (src/cache/store.ts): `kept` holds its entries by kind and input. */
export function memoryStore(onPut?: (kind: string) => void) {
  const kept = new Map<string, string>();
  return {
    kept,
    get: (kind: string, input: string) => kept.get(`${kind}\0${input}`),
    put: (kind: string, input: string, value: string) => {
      onPut?.(kind);
      kept.set(`${kind}\0${input}`, value);
    },
  };
}
