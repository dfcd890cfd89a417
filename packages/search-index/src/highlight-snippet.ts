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
 * A misspelled query word as typed (lower-cased) and as normalizeWord makes it, and the edit distance
 * within which a text word matches it, compared either way (a stemmer can cut a misspelled word
 * differently from the word meant: "platpus" becomes "platpu", "platypus" stays).
 */
export interface NearTerm {
  typed: string;
  stemmed: string;
  distance: number;
}

/** What a snippet marks: query words normalized as normalizeWord does, and misspelled words' near matches. */
interface SnippetTerms {
  words: ReadonlySet<string>;
  near: readonly NearTerm[];
}

/**
 * Whether `a` and `b` are within `limit` edits (insertion, deletion, substitution, or a swap of two
 * neighbours, as LanceDB's fuzzy match counts them). Rows of the distance table past `limit` stop it.
 */
export function withinEdits(a: string, b: string, limit: number): boolean {
  if (Math.abs(a.length - b.length) > limit) return false;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, (before[j - 2] as number) + 1);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return false;
    before = previous;
    previous = current;
  }
  return (previous[b.length] as number) <= limit;
}

/** normalizeWord without stemming: lower-cased, accents folded. */
const UNSTEMMED = (word: string): string => word;

function marks(word: string, terms: SnippetTerms, stem: (word: string) => string): boolean {
  const normalized = normalizeWord(word, stem);
  if (terms.words.has(normalized)) return true;
  return terms.near.some(
    (near) => withinEdits(normalized, near.stemmed, near.distance) || withinEdits(normalizeWord(word, UNSTEMMED), near.typed, near.distance),
  );
}

/**
 * A chunk's snippet: HTML, the text escaped and every word matching a query term in `<mark>`, cut to
 * the window of SNIPPET_MAX_WORDS words holding the most distinct matched words, then the most
 * matches (the whole text when it is short). `near` are misspelled query words: a text word within
 * their edit distance is marked too. `content`, when given, is where the chunk's own text lies in
 * `text` (the searched text adds the document's title before it and its metadata after it): the
 * snippet is cut from it when it holds a match, and from the whole text only when the match is in the
 * title or metadata alone.
 */
export function highlightSnippet(
  text: string,
  words: ReadonlySet<string>,
  stem: (word: string) => string,
  { near = [], content = null }: { near?: readonly NearTerm[]; content?: { start: number; end: number } | null } = {},
): string {
  const terms: SnippetTerms = { words, near };
  if (content !== null && (content.start > 0 || content.end < text.length)) {
    const own = text.slice(content.start, content.end);
    for (const match of own.matchAll(WORD)) if (marks(match[0], terms, stem)) return highlightWindow(own, terms, stem);
  }
  return highlightWindow(text, terms, stem);
}

function highlightWindow(text: string, terms: SnippetTerms, stem: (word: string) => string): string {
  const words = [...text.matchAll(WORD)].map((m) => {
    const marked = marks(m[0], terms, stem);
    return { start: m.index, end: m.index + m[0].length, marked, key: marked ? normalizeWord(m[0], stem) : "" };
  });
  let first = 0;
  if (words.length > SNIPPET_MAX_WORDS) {
    // The window with the most distinct marked words, then the most marked words; ties go to the earliest.
    const counts = new Map<string, number>();
    let distinct = 0;
    let total = 0;
    const add = (key: string, delta: number) => {
      const count = (counts.get(key) ?? 0) + delta;
      counts.set(key, count);
      if (delta > 0 && count === 1) distinct++;
      if (delta < 0 && count === 0) distinct--;
      total += delta;
    };
    for (const word of words.slice(0, SNIPPET_MAX_WORDS)) if (word.marked) add(word.key, 1);
    let best = [distinct, total];
    for (let start = 1; start + SNIPPET_MAX_WORDS <= words.length; start++) {
      const leaving = words[start - 1];
      const entering = words[start + SNIPPET_MAX_WORDS - 1];
      if (leaving?.marked === true) add(leaving.key, -1);
      if (entering?.marked === true) add(entering.key, 1);
      if (distinct > (best[0] as number) || (distinct === best[0] && total > (best[1] as number))) {
        best = [distinct, total];
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
