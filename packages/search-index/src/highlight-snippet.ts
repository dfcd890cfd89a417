/** Words a snippet shows at most, as ts_headline's MaxWords did. */
export const SNIPPET_MAX_WORDS = 35;
/** What stands for cut text, ts_headline's fragment delimiter. */
const ELLIPSIS = " ... ";

/** Words as the index's `simple` tokenizer splits them: runs of letters and digits. */
const WORD = /[\p{L}\p{N}]+/gu;

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

/** Most words normalizeWord remembers per stemmer; past it the memo starts over (a few MiB at most). */
const NORMALIZED_WORDS_KEPT = 50_000;
const normalizedByStemmer = new WeakMap<(word: string) => string, Map<string, string>>();

/**
 * A word as highlighting compares it: lower-cased, stemmed, accents folded (the index folds to
 * ASCII too). Query words and text words go through the same steps, so a stemmed match ("searching"
 * for "search") is marked even where this stemmer and the index's differ in detail. Remembered per
 * stemmer for the whole process: a search normalizes every word of the chunks it shows and of a
 * phrase query's candidates (thousands), mostly words it has seen before, and the stemmer's regular
 * expressions were the search's largest JavaScript cost (bench/RESULTS.md, "REST search: where
 * svc's time went").
 */
export function normalizeWord(word: string, stem: (word: string) => string): string {
  let memo = normalizedByStemmer.get(stem);
  if (memo === undefined) {
    memo = new Map();
    normalizedByStemmer.set(stem, memo);
  }
  let normalized = memo.get(word);
  if (normalized === undefined) {
    normalized = stem(word.toLowerCase())
      .normalize("NFKD")
      .replace(/\p{M}/gu, "");
    if (memo.size >= NORMALIZED_WORDS_KEPT) memo.clear();
    memo.set(word, normalized);
  }
  return normalized;
}

/** The normalized words of the query's positive terms (bare words and phrases). */
export function highlightTerms(terms: readonly string[], stem: (word: string) => string): Set<string> {
  return new Set(terms.flatMap((term) => [...term.matchAll(WORD)].map((m) => normalizeWord(m[0], stem))));
}

/**
 * A chunk's snippet: HTML, the text escaped and every word matching a query term in `<mark>`, cut to
 * the window of SNIPPET_MAX_WORDS words holding the most matches (the whole text when it is short).
 */
export function highlightSnippet(text: string, terms: ReadonlySet<string>, stem: (word: string) => string): string {
  const words = [...text.matchAll(WORD)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    marked: terms.has(normalizeWord(m[0], stem)),
  }));
  let first = 0;
  if (words.length > SNIPPET_MAX_WORDS) {
    // The window with the most marked words; ties go to the earliest.
    let inWindow = words.slice(0, SNIPPET_MAX_WORDS).filter((w) => w.marked).length;
    let best = inWindow;
    for (let start = 1; start + SNIPPET_MAX_WORDS <= words.length; start++) {
      if (words[start - 1]?.marked === true) inWindow--;
      if (words[start + SNIPPET_MAX_WORDS - 1]?.marked === true) inWindow++;
      if (inWindow > best) {
        best = inWindow;
        first = start;
      }
    }
  }
  const last = Math.min(words.length, first + SNIPPET_MAX_WORDS) - 1;
  const from = first === 0 ? 0 : (words[first]?.start ?? 0);
  const to = last === words.length - 1 ? text.length : (words[last]?.end ?? text.length);
  let html = from > 0 ? ELLIPSIS.trimStart() : "";
  let cursor = from;
  for (const word of words.slice(first, last + 1)) {
    if (!word.marked) continue;
    html += `${escapeHtml(text.slice(cursor, word.start))}<mark>${escapeHtml(text.slice(word.start, word.end))}</mark>`;
    cursor = word.end;
  }
  html += escapeHtml(text.slice(cursor, to));
  if (to < text.length) html += ELLIPSIS.trimEnd();
  return html;
}
