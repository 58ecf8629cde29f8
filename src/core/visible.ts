/** What a person sees of text from a spec on a terminal: invisible and control characters made visible. */

/**
 * Characters that a terminal acts on or that change how a line reads without being seen: C0 controls, DEL, C1
 * controls (ESC sequences clear the screen or forge colours; CR overwrites), the line and paragraph separators,
 * bidirectional embeddings, overrides and isolates (they reorder text as displayed), zero-width characters and the
 * byte order mark (two keys that look the same differ by them).
 */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]/g;

/**
 * Text from the spec as it is safe to print: each invisible or control character becomes a visible escape such as
 * \u001b, so a key holding one shows why it differs from the name it looks like.
 */
export function visible(text: string): string {
  return text.replace(INVISIBLE, unicodeEscape);
}

/** True when `text` holds a character that `visible` escapes. */
export function hasInvisible(text: string): boolean {
  return new RegExp(INVISIBLE.source).test(text);
}

/** `text` without terminal escape sequences and invisible characters: what a person sees on a terminal. */
export function withoutInvisible(text: string): string {
  return text.replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, '').replace(INVISIBLE, '');
}

/** A character as its JavaScript (and JSON) escape: `\\u001b`. */
export function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
