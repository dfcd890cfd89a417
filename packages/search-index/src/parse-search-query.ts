/**
 * A search string in the syntax websearch_to_tsquery accepted: bare words must all match,
 * `"quoted words"` match as a phrase, and a leading `-` excludes a word or a quoted phrase.
 * (`or` is not an operator here: it is a word, and a stop word in most languages.)
 */
export interface ParsedSearchQuery {
  words: string[];
  phrases: string[];
  excludedWords: string[];
  excludedPhrases: string[];
}

/** A token: optional `-`, then a quoted phrase (closing quote optional) or a run of non-spaces. */
const TOKEN = /(-?)(?:"([^"]*)"?|([^\s"]+))/g;

export function parseSearchQuery(query: string): ParsedSearchQuery {
  const parsed: ParsedSearchQuery = { words: [], phrases: [], excludedWords: [], excludedPhrases: [] };
  for (const match of query.matchAll(TOKEN)) {
    const excluded = match[1] === "-";
    const phrase = match[2]?.trim();
    if (phrase !== undefined) {
      if (phrase === "") continue;
      // One quoted word is just that word.
      if (!/\s/.test(phrase)) (excluded ? parsed.excludedWords : parsed.words).push(phrase);
      else (excluded ? parsed.excludedPhrases : parsed.phrases).push(phrase.replace(/\s+/g, " "));
      continue;
    }
    const word = match[3];
    if (word === undefined || word === "-") continue;
    (excluded ? parsed.excludedWords : parsed.words).push(word);
  }
  return parsed;
}
