import { normalizeWord } from "./highlight-snippet";

/** Words as the index's `simple` tokenizer splits them: runs of letters and digits. */
const WORD = /[\p{L}\p{N}]+/gu;
/** LanceDB's tokenizer drops longer tokens, which changes which words are neighbours. */
const MAX_TOKEN_LENGTH = 40;
const NON_ASCII = /[^ -~\t\n\r]/;

/**
 * Whether `text` holds each phrase (its words in a row, compared as the index compares them:
 * lower-cased, stemmed), read from the text itself; null when this cannot be sure the index would
 * say the same: text or phrase outside printable ASCII (LanceDB folds accents and splits on Unicode classes in
 * ways this does not copy) or a token longer than the tokenizer keeps. `normalize` maps a word as
 * normalizeWord does (callers pass a memo of it: a page's candidates repeat most of their words).
 */
export function findPhrases(text: string, phrases: readonly (readonly string[])[], normalize: (word: string) => string): boolean | null {
  if (NON_ASCII.test(text)) return null;
  const tokens: string[] = [];
  for (const match of text.matchAll(WORD)) {
    if (match[0].length > MAX_TOKEN_LENGTH) return null;
    tokens.push(normalize(match[0]));
  }
  return phrases.every((phrase) => holdsInOrder(tokens, phrase));
}

function holdsInOrder(tokens: readonly string[], phrase: readonly string[]): boolean {
  for (let start = 0; start + phrase.length <= tokens.length; start++) {
    if (phrase.every((word, offset) => tokens[start + offset] === word)) return true;
  }
  return false;
}

/**
 * The phrases' words normalized for findPhrases, or null when one of them is outside what it can
 * decide (see findPhrases).
 */
export function phraseWords(phrases: readonly string[], stem: (word: string) => string): string[][] | null {
  const words = phrases.map((phrase) => [...phrase.matchAll(WORD)].map((match) => match[0]));
  if (words.some((list) => list.length === 0 || list.some((word) => NON_ASCII.test(word) || word.length > MAX_TOKEN_LENGTH))) return null;
  return words.map((list) => list.map((word) => normalizeWord(word, stem)));
}

/** normalizeWord for one stemmer (it remembers its words itself: see normalizeWord). */
export function memoNormalize(stem: (word: string) => string): (word: string) => string {
  return (word) => normalizeWord(word, stem);
}
