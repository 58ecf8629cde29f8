/**
 * Words in names and descriptions, for the description and naming rules. Deliberately small heuristics, documented
 * in docs/commands/lint.md: no dictionary beyond the verb list below.
 */
import { unicodeEscape } from '../core/visible.js';

/** The words of a tool name: split at _ - . and at camelCase humps, lower case. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** The words of free text, lower case, in any script; identifiers such as search_docs split into their words. */
export function textWords(text: string): string[] {
  const out: string[] = [];
  for (const match of text.match(/[\p{L}\p{N}]+(?:'\p{L}+)?/gu) ?? []) {
    const w = match.includes("'") ? match.replace(/'\p{L}+$/u, '') : match;
    // Only a capital after the first character can split letters and digits (nameWords' humps): without one the
    // word is itself, lower case (test/lint-words.test.ts holds this equal to nameWords on every word).
    if (/.[A-Z]/su.test(w)) out.push(...nameWords(w));
    else out.push(w.toLowerCase());
  }
  return out;
}

const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/gu;

/** How many words a text has; in scripts written without spaces (Chinese, Japanese, Thai) each character counts. */
export function wordCount(text: string): number {
  const unspaced = text.match(UNSPACED)?.length ?? 0;
  return unspaced + textWords(text.replace(UNSPACED, ' ')).length;
}

/** A crude stem, the same on both sides of a comparison: "deletes", "deleted", "deleting" → "delet". */
export function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  for (const suffix of ['ing', 'ed', 'es', 's']) {
    if (w.length > suffix.length + 2 && w.endsWith(suffix) && !(suffix === 's' && w.endsWith('ss'))) {
      w = w.slice(0, -suffix.length);
      break;
    }
  }
  return w.endsWith('e') && w.length > 3 ? w.slice(0, -1) : w;
}

/** English function words, rare as words of other languages: their presence marks a text as English. */
const ENGLISH: ReadonlySet<string> = new Set('the of and to with for by from its this that or is are'.split(' '));

/** True when the text reads as English: only then can the English verb list judge it. */
export function looksEnglish(text: string): boolean {
  return textWords(text).some((w) => ENGLISH.has(w));
}

/** Words that carry no meaning of their own in a tool description. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  `a an the this that these those it its of to in on at by for from with and or but as is are be was were been this
  tool tools function api endpoint via using use used one all any some given`.split(/\s+/),
);

/** Content words: not stop words. */
export function contentWords(text: string): string[] {
  return textWords(text).filter((w) => !STOPWORDS.has(w));
}

/**
 * Verbs that say what a tool does. A description that contains none of them (in any inflection) names a thing
 * but not an action: "User profile data." rather than "Return the user's profile.".
 */
const VERB_LIST = `
accept activate add adjust aggregate allow analyse analyze annotate answer append apply approve archive ask assign
attach authenticate authorize backup block bookmark build bump calculate call cancel capture change check choose
clean clear clone close collect combine commit compare compile complete compose compute confirm connect convert copy
count crawl create crop decide decline decode decrypt delete deploy describe detach detect disable disconnect
dismiss download drop duplicate echo edit elicit enable encode encrypt enqueue ensure enumerate erase estimate
evaluate execute expand explain export extract fail fetch fill filter find finish fix follow forecast fork format
forward generate get give grant greet guess hide highlight identify import inspect install invite invoke join keep
launch list load lock login logout look lookup make mark measure merge migrate modify monitor move mute navigate
normalize notify open overwrite paginate parse patch pause pay pick ping poll predict preview print process produce
publish pull purge push put query rank rate read reboot receive redact reduce refresh register reject release reload
remember remove rename render reorder replace reply report request reserve reset resize resolve restart restore
resume retrieve retry return revert review revoke rewrite rotate route run save scan schedule scrape search select
send set share show sign simulate skip sleep snooze sort split stage start stop store submit subscribe suggest
summarise summarize swap switch sync take tell test throw toggle track transcribe transfer transform translate
trigger trim truncate undo uninstall unlock unpin unsubscribe update upgrade upload upsert validate verify vote wait
watch wipe write zip use see say help provide include let
`;
export const VERBS: ReadonlySet<string> = new Set(VERB_LIST.split(/\s+/).filter(Boolean).map(stem));

/** True when the text contains a verb of the list, in any inflection. */
export function hasVerb(text: string): boolean {
  return textWords(text).some((w) => VERBS.has(stem(w)));
}

/** Jaccard similarity of two sets: shared / all. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (!a.size && !b.size) return 1;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared);
}

/** Text from the spec, quoted for a message: control characters (C0, DEL, C1) and line separators escaped. */
export function quoted(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\u009f\u2028\u2029]/g, unicodeEscape);
}
