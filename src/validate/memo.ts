/**
 * What the schema checks computed in earlier loads of this process, by content: a long-running process (watch, dev,
 * check after generate in one run) does not compile again a schema whose content, dialect and kind are unchanged.
 * Only functions of their key are kept here, so a hit gives what a fresh computation would. An entry that the last
 * two loads did not use is dropped, so memory follows the spec, not its history.
 */
const entries = new Map<string, { used: number; value: unknown }>();
let load = 0;

/** A new load begins: entries that neither it nor the previous one will use go. */
export function startLoad(): void {
  load++;
  for (const [key, e] of entries) if (e.used < load - 1) entries.delete(key);
}

/** `compute()`, or what it gave for the same key before. */
export function memo<T>(key: string, compute: () => T): T {
  const hit = entries.get(key);
  if (hit) {
    hit.used = load;
    return hit.value as T;
  }
  const value = compute();
  entries.set(key, { used: load, value });
  return value;
}

/** What an earlier computation under `key` gave, if it is still kept. */
export function recall<T>(key: string): T | undefined {
  const hit = entries.get(key);
  if (!hit) return undefined;
  hit.used = load;
  return hit.value as T;
}

/** Keeps `value` as what `key` computes to. */
export function remember(key: string, value: unknown): void {
  entries.set(key, { used: load, value });
}
