// The query classes of bench/search-rest (issue 19), shared by run.mjs and ab.mjs.
import os from "node:os";
import path from "node:path";

/**
 * Where a corpus of `target` chunks lives: its database and index directory, with `name` (run.mjs's
 * and ab.mjs's --name) appended so that runs on a shared server do not meet.
 */
export function corpusPlace(target, name = "") {
  const size = target >= 1_000_000 ? `${target / 1_000_000}m` : `${Math.round(target / 1000)}k`;
  const label = name ? `${size}_${name.replace(/[^a-z0-9]/gi, "_").toLowerCase()}` : size;
  return { label, database: `svc_bench_search_rest_${label}`, indexDir: path.join(os.tmpdir(), `svc-bench-search-rest-${label}`) };
}

/**
 * The query classes of issue 19 over the corpus's `vocabulary` (bench/search/corpus.mjs); each call
 * draws a new query from the seeded generator.
 */
export function queryClasses(random, phrases, vocabulary) {
  const word = (rank) => vocabulary.words[rank];
  const between = (low, high) => low + Math.floor(random() * (high - low + 1));
  const distinctWords = (count, low, high) => {
    const words = new Set();
    while (words.size < count) words.add(word(between(low, high)));
    return [...words];
  };
  const distinct = (count, low, high) => distinctWords(count, low, high).join(" ");
  return {
    "one common word": () => word(between(0, 9)),
    "one mid word": () => word(between(900, 1100)),
    "one rare word": () => word(between(19_000, 21_000)),
    "two common (AND)": () => distinct(2, 0, 19),
    "five common (AND)": () => distinct(5, 0, 19),
    "twenty common (AND)": () => distinct(20, 0, 49),
    "quoted phrase": () => phrases[Math.floor(random() * phrases.length)],
    // Last, so the classes above draw the same queries as before it existed. A question typed in plain
    // language (issue 37): 2 common words (one of them is in most chunks), 3 mid and 3 rare, in a
    // random order: most chunks hold one of them, almost none all eight.
    "question (8 mixed words)": () => {
      const words = [...distinctWords(2, 0, 19), ...distinctWords(3, 900, 1100), ...distinctWords(3, 19_000, 21_000)];
      for (let i = words.length - 1; i > 0; i -= 1) {
        const j = Math.floor(random() * (i + 1));
        [words[i], words[j]] = [words[j], words[i]];
      }
      return words.join(" ");
    },
  };
}

/** Phrases that occur in the corpus: two neighbouring words of stored sections. */
export async function samplePhrases(db) {
  const { rows } = await db.query(`
    SELECT text FROM document_section WHERE document_id LIKE 'bench-doc-%' AND position = 3
    ORDER BY document_id LIMIT 200`);
  return rows.map((row) => {
    const words = row.text.split(" ");
    return `"${words[10]} ${words[11]}"`;
  });
}

