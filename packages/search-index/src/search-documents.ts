import { BooleanQuery, MatchQuery, Occur, Operator, PhraseQuery, type FullTextQuery } from "@lancedb/lancedb";
import { buildSearchFilter, type SearchAccess, type SearchFilter } from "./build-search-filter";
import { chunkKey, parseChunkKey, type ChunkRow } from "./chunk-row";
import { allCommon, TOKEN } from "./common-words";
import type { GenerationTable } from "./generation-table";
import { findPhrases, memoNormalize, phraseWords } from "./find-phrase";
import { highlightSnippet, highlightTerms, normalizeWord, type NearTerm } from "./highlight-snippet";
import { parseSearchQuery, type ParsedSearchQuery } from "./parse-search-query";
import { SearchIndexError } from "./search-index-error";
import { sqlIn, sqlString } from "./sql-literal";

/**
 * How a query's bare words match: `any` ranks every chunk holding one of them by BM25, `all` requires
 * each (quoted phrases are required and exclusions exclude in both).
 */
export type SearchMatch = "any" | "all";

/** Chunks shown per document, best first. */
export const CHUNKS_PER_DOCUMENT = 3;

export interface SearchHitChunk {
  chunkIndex: number;
  /** HTML: the chunk's text escaped, matched words in `<mark>`. */
  snippet: string;
  link: string | null;
  imageFileId: string | null;
  /** The chunk's BM25 score (higher is better). */
  score: number;
}

export interface SearchHit {
  documentId: string;
  semanticIdentifier: string;
  title: string | null;
  source: string;
  link: string | null;
  /** The best chunk's score. */
  score: number;
  docUpdatedAt: Date;
  chunks: SearchHitChunk[];
}

/** What ranking reads of a chunk: enough to rank and group (see readShownChunks). */
interface RankedChunk {
  chunk_id: string;
  document_id: string;
  chunk_index: number;
  _score: number;
}

interface ChunkMatch extends RankedChunk {
  text: string;
  /** Where the chunk's own text lies in `text` (see ShownChunk), when known. */
  content?: { start: number; end: number } | null;
  semantic_identifier: string;
  title: string | null;
  source: string;
  document_link: string | null;
  link: string | null;
  image_file_id: string | null;
  doc_updated_at: Date | number;
}

/**
 * What ranking reads: the chunk's key and score. The key holds the document id and the chunk index
 * (`<chunk_index>:<document_id>`, chunkKey), so ranking reads one column of each ranked row, not three
 * (the rows' columns are read at random places: at 1 M chunks the three cost ~800 KB and ~250 reads
 * for 120 rows; bench/RESULTS.md).
 */
const RANK_COLUMNS = ["chunk_id", "_score"];
/** What a shown chunk reads besides its rank. */
const SHOWN_COLUMNS = [
  "chunk_id",
  "text",
  "semantic_identifier",
  "title",
  "source",
  "document_link",
  "link",
  "image_file_id",
  "doc_updated_at",
  "tags",
];

/**
 * A search as LanceDB queries. `main` ranks; `everyWord`, when set, checks on the candidates that each
 * has every word; `exact` is `main` with one Must clause per word, used instead once the check fails.
 */
interface ChunkQuery {
  main: FullTextQuery;
  /** What `main`'s scores are multiplied by, so that every form scores a row as `exact`'s phrase form does (SCORE_SCALE). */
  mainScale: number;
  everyWord: FullTextQuery | null;
  exact: FullTextQuery;
  /** The positive words as highlighting normalizes them (see topChunks). */
  words: ReadonlySet<string>;
  /** For a query with phrases, the phrase-free query whose ranking a candidate pass reads (see topByPhraseCandidates). */
  phraseCandidates: PhraseCandidates | null;
}

/**
 * A query of phrases only (no bare word, no word twice) as a candidate pass reads it (see
 * topByPhraseCandidates): `query` is `main` without its phrase clauses, and `phrases` are the phrases'
 * words as findPhrases compares them. LanceDB 0.39 sums the scores of a BooleanQuery's Must clauses
 * and scores a PhraseQuery as the BM25 sum of its words, so `main` scores a row holding the phrases
 * SCORE_SCALE times what `query` does: both rank those rows the same (pinned by "ranks a phrase query
 * exactly" in the tests, which compares the two paths' scores).
 */
interface PhraseCandidates {
  query: FullTextQuery;
  phrases: string[][];
}
const SCORE_SCALE = 2;

/**
 * The parsed query as LanceDB full-text queries, or null when it has nothing to match.
 * Three facts of LanceDB 0.31 shaped it (seen in this package's tests; 0.39 was seen to fix the simple cases, the guards stay):
 *  - a BooleanQuery scores with its first clause only, so the first clause is one MatchQuery of every
 *    positive word (phrase words included) with AND: its BM25 sum is the score; phrases and
 *    exclusions follow as clauses (0.39 adds the scores of all Must clauses, so there a phrase's words
 *    count twice in the score);
 *  - that AND is not exact: rows not yet merged into the FTS index are searched by a scan that
 *    ignores it, and on merged rows a word the part of the index holding the row has no posting for
 *    is dropped from the query instead of failing it (each merge adds a part for the rows it merges,
 *    so a chunk merged on its own with two of twenty query words matched them all);
 *  - one Must clause per word (`exact`) is exact on both, but makes every common word's postings a
 *    full evaluation. So the fast query runs first and `everyWord` (those Must clauses alone) checks
 *    its candidates, restricted to their ids: while no candidate fails, its ranking is exact (a row
 *    with every word scores the same in both); once one fails, the search switches to `exact`.
 * A query of one phrase and nothing else is the PhraseQuery alone: LanceDB ranks it top-k like a
 * word query (one common phrase at 1 M chunks: ~10 ms, against 100–500 ms for the BooleanQuery that
 * evaluates the phrase on every row holding its words; bench/RESULTS.md), scoring a row the BM25
 * sum of the phrase's words, half what the BooleanQuery adds up (mainScale makes them equal).
 */
function toChunkQuery(parsed: ParsedSearchQuery, stem: (word: string) => string, match: SearchMatch): ChunkQuery | null {
  const phraseWords = parsed.phrases.flatMap((phrase) => phrase.split(" "));
  const positive = [...parsed.words, ...phraseWords];
  if (positive.length === 0) return null;
  if (match === "any" && parsed.words.length > 0) return anyWordQuery(parsed, stem, []);
  const scored = new MatchQuery(positive.join(" "), "text", { operator: Operator.And });
  const exclusions: [Occur, FullTextQuery][] = [
    ...parsed.excludedWords.map((word): [Occur, FullTextQuery] => [Occur.MustNot, new MatchQuery(word, "text")]),
    ...parsed.excludedPhrases.map((phrase): [Occur, FullTextQuery] => [Occur.MustNot, new PhraseQuery(phrase, "text")]),
  ];
  const clauses: [Occur, FullTextQuery][] = [
    ...parsed.phrases.map((phrase): [Occur, FullTextQuery] => [Occur.Must, new PhraseQuery(phrase, "text")]),
    ...exclusions,
  ];
  const eachWord = positive.map((word): [Occur, FullTextQuery] => [Occur.Must, new MatchQuery(word, "text", { operator: Operator.And })]);
  const common = {
    everyWord: positive.length > 1 ? new BooleanQuery(eachWord) : null,
    exact: new BooleanQuery([[Occur.Must, scored], ...eachWord, ...clauses]),
    words: highlightTerms(positive, stem),
  };
  const [onlyPhrase] = parsed.phrases;
  if (onlyPhrase !== undefined && parsed.phrases.length === 1 && parsed.words.length === 0 && exclusions.length === 0) {
    return { ...common, main: new PhraseQuery(onlyPhrase, "text"), mainScale: SCORE_SCALE, phraseCandidates: null };
  }
  return {
    ...common,
    main: clauses.length === 0 ? scored : new BooleanQuery([[Occur.Must, scored], ...clauses]),
    mainScale: 1,
    phraseCandidates: phraseCandidatesOf(parsed, scored, exclusions, stem),
  };
}

/** How much a misspelled word's near matches count against a word matched as typed (see anyWordQuery). */
const NEAR_MATCH_BOOST = 0.5;
/** Index terms a misspelled word is matched to at most (LanceDB's maxExpansions). */
const NEAR_MATCH_EXPANSIONS = 20;

/**
 * A query whose bare words match `any`: one MatchQuery of them with OR, which LanceDB ranks top-k by
 * BM25 with block-max WAND (a row's score is the sum over the words it holds, so more words and rarer
 * ones rank higher) and which is exact on rows not yet merged too (the scan matches any word). Quoted
 * phrases are Must clauses beside it (the words then only add to the score) and exclusions MustNot.
 * `near` are the misspelled words (see nearTerms): each is a Should clause matching the index's terms
 * within its edit distance, scaled by NEAR_MATCH_BOOST so that a near match counts less than an exact
 * one (LanceDB scores a fuzzy term as if typed). The clause holds the word as typed and, when it
 * differs, as this package's stemmer cuts it: LanceDB compares the typed word, stemmed by its own
 * tokenizer, with the index's stemmed terms, and a misspelled word often escapes the stemmer
 * ("kinecic" stays whole, three edits from `kinet`; cut, it is "kinec", one edit), while for another
 * the cut form is the farther one ("platpus" → "platpu", two edits from `platypus`). Nothing here
 * needs the exactness check of `all`.
 */
function anyWordQuery(parsed: ParsedSearchQuery, stem: (word: string) => string, near: readonly NearTerm[]): ChunkQuery {
  const scored = new MatchQuery(parsed.words.join(" "), "text", { operator: Operator.Or });
  const nearClauses = near.map((term): [Occur, FullTextQuery] => [
    Occur.Should,
    new MatchQuery(term.typed === term.stemmed ? term.typed : `${term.typed} ${term.stemmed}`, "text", {
      operator: Operator.Or,
      fuzziness: term.distance,
      maxExpansions: NEAR_MATCH_EXPANSIONS,
      boost: NEAR_MATCH_BOOST,
    }),
  ]);
  const clauses: [Occur, FullTextQuery][] = [
    ...parsed.phrases.map((phrase): [Occur, FullTextQuery] => [Occur.Must, new PhraseQuery(phrase, "text")]),
    ...parsed.excludedWords.map((word): [Occur, FullTextQuery] => [Occur.MustNot, new MatchQuery(word, "text")]),
    ...parsed.excludedPhrases.map((phrase): [Occur, FullTextQuery] => [Occur.MustNot, new PhraseQuery(phrase, "text")]),
  ];
  // With no phrase, the words (and near matches) are what a row must match at least one of.
  const words: FullTextQuery = nearClauses.length === 0 ? scored : new BooleanQuery([[Occur.Should, scored], ...nearClauses]);
  const main =
    clauses.length === 0
      ? words
      : new BooleanQuery([[parsed.phrases.length > 0 ? Occur.Should : Occur.Must, words], ...clauses]);
  const phraseWords = parsed.phrases.flatMap((phrase) => phrase.split(" "));
  return { main, mainScale: 1, everyWord: null, exact: main, words: highlightTerms([...parsed.words, ...phraseWords], stem), phraseCandidates: null };
}

/** Shortest word matched to the index's terms when it has no posting: a shorter one is one edit from too many words. */
const MIN_NEAR_MATCH_LENGTH = 4;
/** Words of at least this many letters are matched within two edits, shorter ones within one. */
const TWO_EDITS_LENGTH = 8;
/**
 * Longest word matched to the index's terms: LanceDB builds an automaton per word whose cost grows
 * with its length (~15 ms at 16 letters, ~45 ms at 24 within two edits) and refuses one past 10,000
 * states (a word of ~60 letters); a word this long is rarely a typo of a word the index holds.
 */
const MAX_NEAR_MATCH_LENGTH = 20;

/** Most words remembered per table as having postings (see nearTerms); past it the memo starts over. */
const POSTED_WORDS_KEPT = 50_000;
const postedWordsByTable = new WeakMap<object, Set<string>>();

function postedWords(generation: GenerationTable): Set<string> {
  let posted = postedWordsByTable.get(generation.table);
  if (posted === undefined || posted.size >= POSTED_WORDS_KEPT) {
    posted = new Set();
    postedWordsByTable.set(generation.table, posted);
  }
  return posted;
}


/**
 * The query's bare words the index has no posting for, as NearTerms (see anyWordQuery). Only a word
 * no shown chunk holds can be one (a chunk holding it is a posting), so a query whose words all show
 * asks nothing more; each other word is one LanceDB query of that word alone, limit 1, unfiltered
 * (~1 ms for a word without postings, a few for one with: bench/RESULTS.md). The words are the tokens
 * highlighting sees, lower-cased. A word found to have postings, by a shown chunk or a query, is
 * remembered for the table's handle (a write adds postings; the rare word whose last posting a
 * delete removes is then only not widened to its neighbours), so questions that share words with
 * earlier ones mostly ask nothing.
 */
async function nearTerms(
  generation: GenerationTable,
  words: readonly string[],
  shown: ChunkMatch[],
  budget: QueryBudget,
): Promise<NearTerm[]> {
  const stem = generation.language.stem;
  const tokens = [...new Set(words.flatMap((word) => [...word.matchAll(TOKEN)].map((m) => m[0].toLowerCase())))];
  const candidates = tokens.filter((token) => [...token].length >= MIN_NEAR_MATCH_LENGTH && [...token].length <= MAX_NEAR_MATCH_LENGTH);
  const known = postedWords(generation);
  if (candidates.every((token) => known.has(token))) return [];
  // Only now the shown chunks' words: normalizing every word of a page's chunks cost more than the
  // rest of the check for a query of many words (bench/RESULTS.md, "common words").
  const held = highlightTerms(
    shown.map((row) => row.text),
    stem,
  );
  for (const token of candidates) if (held.has(normalizeWord(token, stem))) known.add(token);
  const unseen = candidates.filter((token) => !known.has(token));
  const missing = await Promise.all(
    unseen.map(async (token) => {
      const probe = generation.table.query().fullTextSearch(new MatchQuery(token, "text")).select(["chunk_id", "_score"]).limit(1);
      const rows = (await budget.run((options) => probe.toArray(options))) as unknown[];
      if (rows.length > 0) known.add(token);
      return rows.length === 0;
    }),
  );
  return unseen
    .filter((_, at) => missing[at])
    .map((token) => ({ typed: token, stemmed: normalizeWord(token, stem), distance: [...token].length >= TWO_EDITS_LENGTH ? 2 : 1 }));
}

/** The candidate pass of a query with phrases, or null when it has none (see PhraseCandidates). */
function phraseCandidatesOf(
  parsed: ParsedSearchQuery,
  scored: FullTextQuery,
  exclusions: [Occur, FullTextQuery][],
  stem: (word: string) => string,
): PhraseCandidates | null {
  if (parsed.phrases.length === 0 || parsed.words.length > 0) return null;
  const phrases = phraseWords(parsed.phrases, stem);
  const words = phrases?.flat() ?? [];
  if (phrases === null || new Set(words).size !== words.length) return null;
  return { query: exclusions.length === 0 ? scored : new BooleanQuery([[Occur.Must, scored], ...exclusions]), phrases };
}

/**
 * The where-clause (access rule and filters) is a prefilter: LanceDB answers it from the table's scalar
 * indexes (a bitmap per value, combined) before the top-k cut, which at a million chunks costs a few
 * milliseconds over no filter (bench/RESULTS.md). Without those indexes it read the clause's columns
 * of every row (+100–300 ms), which is why an earlier version post-filtered the unfiltered ranking
 * first; a table made then gets the indexes at its next optimize.
 */
async function runChunkQuery<Extra extends object = object>(
  generation: GenerationTable,
  query: FullTextQuery,
  where: string | null,
  limit: number,
  budget: QueryBudget,
  scale = 1,
  extraColumns: readonly (keyof Extra & string)[] = [],
): Promise<(RankedChunk & Extra)[]> {
  let builder = generation.table
    .query()
    .fullTextSearch(query)
    .select([...RANK_COLUMNS, ...extraColumns])
    .limit(limit);
  if (where !== null) builder = builder.where(where);
  const rows = (await budget.run((options) => builder.toArray(options))) as (Extra & { chunk_id: string; _score: number })[];
  return rows.map((row) => {
    const { documentId, chunkIndex } = parseChunkKey(row.chunk_id);
    const ranked: Record<string, unknown> = { chunk_id: row.chunk_id, document_id: documentId, chunk_index: chunkIndex, _score: row._score * scale };
    for (const column of extraColumns) ranked[column] = row[column];
    return ranked as RankedChunk & Extra;
  });
}

/** Candidates a phrase query's candidate pass ranks per chunk of its ranking round (see topByPhraseCandidates). */
const PHRASE_WIDENING = 4;
/**
 * How much deeper than the page's chunk window (`limit × CHUNKS_PER_DOCUMENT`) a ranking round reads,
 * so that the one round that finds the page's documents also holds their further chunks.
 */
const RANKING_DEPTH = 4;
/** What the candidate pass reads of each candidate. */
const CANDIDATE_COLUMNS = ["text"] as const;

/**
 * The best chunks of a query of phrases, from a bounded candidate pass: the top `limit × widening` of
 * its phrase-free form (one AND of the words: no positions read), kept (at most `limit`) when their
 * own text holds the phrases (findPhrases). The kept rows, best first, are the top of the exact
 * ranking, however many: every row holding the phrases matches the phrase-free form, ranked the same
 * (PhraseCandidates). `exhausted` when they are all the rows that match. Null when a candidate
 * findPhrases cannot decide: the caller runs `main`. Why: LanceDB evaluates a phrase inside a
 * BooleanQuery on every row holding its words, also under a where-clause on chunk ids, so a phrase of
 * two common words costs positions on a few hundred thousand rows in `main` (bench/RESULTS.md). A
 * query of one phrase alone does not come here: its `main` is the PhraseQuery alone, which LanceDB
 * ranks top-k like a word query.
 */
async function topByPhraseCandidates(
  generation: GenerationTable,
  query: ChunkQuery,
  where: string | null,
  limit: number,
  widening: number,
  budget: QueryBudget,
): Promise<{ rows: RankedChunk[]; exhausted: boolean } | null> {
  if (query.phraseCandidates === null || query.main === query.exact) return null;
  const widened = limit * widening;
  const candidates = await runChunkQuery<{ text: string }>(
    generation,
    query.phraseCandidates.query,
    where,
    widened,
    budget,
    SCORE_SCALE,
    CANDIDATE_COLUMNS,
  );
  const normalize = memoNormalize(generation.language.stem);
  const kept: RankedChunk[] = [];
  for (const row of candidates) {
    const holds = findPhrases(row.text, query.phraseCandidates.phrases, normalize);
    if (holds === null) return null;
    if (holds) kept.push({ chunk_id: row.chunk_id, document_id: row.document_id, chunk_index: row.chunk_index, _score: row._score });
    if (kept.length === limit) break;
  }
  return { rows: kept.sort(byRank), exhausted: kept.length < limit && candidates.length < widened };
}

/** Ties in score are ordered by document and chunk, so a page is the same from one call to the next. */
function byRank(a: RankedChunk, b: RankedChunk): number {
  return b._score - a._score || a.document_id.localeCompare(b.document_id) || a.chunk_index - b.chunk_index;
}

/**
 * The best `limit` chunks passing `where` by `main`, best first (ranked only: see readShownChunks),
 * and whether fewer than `limit` matched (no more to fetch).
 */
async function topChunks(
  generation: GenerationTable,
  query: ChunkQuery,
  where: string | null,
  limit: number,
  budget: QueryBudget,
): Promise<{ rows: RankedChunk[]; exhausted: boolean }> {
  const rows = await runChunkQuery(generation, query.main, where, limit, budget, query.mainScale);
  rows.sort(byRank);
  return { rows, exhausted: rows.length < limit };
}

/**
 * A shown chunk's fields as the caller's system of record holds them (see `readShown`): a ChunkRow's
 * shown part, and where the chunk's own text lies in `text` (between the title prefix and the metadata
 * suffix), so that a snippet shows those only when the match is there.
 */
export type ShownChunk = Pick<
  ChunkRow,
  "documentId" | "chunkIndex" | "text" | "semanticIdentifier" | "title" | "source" | "documentLink" | "link" | "imageFileId" | "docUpdatedAt"
> & { content?: { start: number; end: number } };

/** Reads shown chunks by key; a chunk it does not return is read from the index instead. */
export type ReadShownChunks = (chunks: { documentId: string; chunkIndex: number }[]) => Promise<ShownChunk[]>;

type ShownColumns = Omit<ChunkMatch, "document_id" | "chunk_index" | "_score">;

/**
 * Where the chunk's own text lies in an index row's searched text, which is the document's title (or
 * semantic identifier), the content, and the metadata as `key: values` lines, each part on its own
 * line when not empty (core's searchedText; the tags hold the metadata in order, one per value). A
 * row whose text does not start and end exactly so is treated as content throughout.
 */
function indexedContentRange(row: ShownColumns & { tags?: Iterable<string> | null }): { start: number; end: number } | null {
  const prefix = `${row.title ?? row.semantic_identifier}\n`;
  const start = row.text.startsWith(prefix) ? prefix.length : 0;
  const lines: [string, string[]][] = [];
  for (const tag of row.tags ?? []) {
    const [key, value] = JSON.parse(tag) as [string, string];
    const last = lines.at(-1);
    if (last?.[0] === key) last[1].push(value);
    else lines.push([key, [value]]);
  }
  const suffix = lines.map(([key, values]) => `\n${key}: ${values.join(", ")}`).join("");
  const end = suffix !== "" && row.text.endsWith(suffix) && row.text.length - suffix.length >= start ? row.text.length - suffix.length : row.text.length;
  return start === 0 && end === row.text.length ? null : { start, end };
}

/**
 * The shown chunks' other columns (text, titles, links), read by chunk id once the page is known:
 * ranking reads only what it ranks and groups by, so a search reads text for the few chunks it shows
 * instead of every chunk it ranks. `readShown`, when given, is asked first: a keyed read of the
 * system of record costs ~1 ms where the index's lookup by chunk id costs ~10 ms at a million chunks
 * (bench/RESULTS.md); what it does not return is read from the index. A row deleted between the
 * reads is left out, as a search a moment later would leave it out.
 */
async function readShownChunks(
  generation: GenerationTable,
  ranked: RankedChunk[],
  budget: QueryBudget,
  readShown: ReadShownChunks | undefined,
): Promise<Map<string, ChunkMatch>> {
  if (ranked.length === 0) return new Map();
  const byId = new Map<string, ShownColumns>();
  if (readShown !== undefined) {
    budget.check();
    const read = await readShown(ranked.map((row) => ({ documentId: row.document_id, chunkIndex: row.chunk_index })));
    for (const chunk of read) byId.set(chunkKey(chunk), toShownColumns(chunk));
  }
  const missing = ranked.filter((row) => !byId.has(row.chunk_id));
  if (missing.length > 0) {
    const lookup = generation.table
      .query()
      .where(sqlIn("chunk_id", missing.map((row) => sqlString(row.chunk_id))))
      .select(SHOWN_COLUMNS)
      .limit(missing.length);
    for (const row of (await budget.run((options) => lookup.toArray(options))) as (ShownColumns & { tags?: Iterable<string> | null })[]) {
      byId.set(row.chunk_id, { ...row, content: indexedContentRange(row) });
    }
  }
  return new Map(
    ranked.flatMap((row) => {
      const shown = byId.get(row.chunk_id);
      return shown === undefined ? [] : [[row.chunk_id, { ...shown, ...row }]];
    }),
  );
}

function toShownColumns(chunk: ShownChunk): ShownColumns {
  return {
    chunk_id: chunkKey(chunk),
    text: chunk.text,
    content: chunk.content ?? null,
    semantic_identifier: chunk.semanticIdentifier,
    title: chunk.title,
    source: chunk.source,
    document_link: chunk.documentLink,
    link: chunk.link,
    image_file_id: chunk.imageFileId,
    doc_updated_at: chunk.docUpdatedAt,
  };
}

/**
 * Whether a shown chunk lacks a query word, so that the fast query's AND was not exact (see
 * toChunkQuery) and the search must run `exact`. The chunks' own text is read first: when each holds
 * every word as highlighting sees them (the usual case), nothing is asked; only a doubt asks the
 * index, whose tokenizer decides. Only the shown chunks matter: a document is on the page through
 * its best chunk, which is shown, and a wrong row below the page moves nothing on it.
 */
async function lacksQueryWord(generation: GenerationTable, query: ChunkQuery, shown: ChunkMatch[], budget: QueryBudget): Promise<boolean> {
  if (query.everyWord === null) return false;
  const stem = generation.language.stem;
  const doubtful = shown.some((row) => {
    const held = highlightTerms([row.text], stem);
    return [...query.words].some((word) => !held.has(word));
  });
  if (!doubtful) return false;
  const check = generation.table
    .query()
    .fullTextSearch(query.everyWord)
    .where(sqlIn("chunk_id", shown.map((row) => sqlString(row.chunk_id))))
    .select(["chunk_id", "_score"])
    .limit(shown.length);
  const matching = (await budget.run((options) => check.toArray(options))) as unknown[];
  return matching.length < shown.length;
}

/**
 * The query without the language's stop words among its bare words (PostgreSQL's dictionaries
 * dropped them: "the and of" matched nothing, "the quokka" matched as "quokka"). Phrases keep theirs.
 */
function withoutStopWords(parsed: ParsedSearchQuery, stopWords: ReadonlySet<string>): ParsedSearchQuery {
  const kept = (word: string) => !stopWords.has(word.toLowerCase());
  return { ...parsed, words: parsed.words.filter(kept), excludedWords: parsed.excludedWords.filter(kept) };
}

/**
 * Whether an `any` query's bare words are all common in the table (held by at least COMMON_SHARE of
 * its chunks, by a sample: common-words.ts), so that it requires them all, as Lucene's CommonTermsQuery
 * and Elasticsearch's `common` query rewrite a query of high-frequency terms only into a conjunction.
 * Why: LanceDB's OR of many common words ranks nearly every chunk (twenty words among the 50 most
 * common: 5.4× the CPU of the AND through REST, bench/RESULTS.md), while such words say little of
 * what is looked for, and their AND is what `all` (and svc before issue 37) answered. Only queries of
 * two or more bare words and no phrase; a query holding one word that is not common stays an OR of all
 * its words (LanceDB 0.39 has no minimum-should-match, and its BooleanQuery of the rare words as Must
 * and the common ones as Should cost 2-4× the plain OR: bench/RESULTS.md).
 */
function commonWordsRequired(generation: GenerationTable, parsed: ParsedSearchQuery): boolean {
  return parsed.phrases.length === 0 && parsed.words.length >= 2 && allCommon(generation, parsed.words);
}

/**
 * The time a search may take and the signal of its caller. Every LanceDB query runs with the time
 * left as its own timeout (LanceDB stops it there), and the signal is checked before each one: a
 * query already running cannot be stopped from JavaScript, so an abort takes effect at the next step.
 */
class QueryBudget {
  constructor(
    private readonly deadline: number | null,
    private readonly signal: AbortSignal | null,
  ) {}

  check(): void {
    if (this.signal?.aborted === true) throw new SearchIndexError("ABORTED", "The search was cancelled.");
    if (this.deadline !== null && Date.now() >= this.deadline) throw new SearchIndexError("TIMEOUT", "The search took too long.");
  }

  async run<T>(query: (options: { timeoutMs?: number }) => Promise<T>): Promise<T> {
    this.check();
    try {
      return await query(this.deadline === null ? {} : { timeoutMs: Math.max(1, this.deadline - Date.now()) });
    } catch (error) {
      // LanceDB reports its own timeout as a plain error: past the deadline, that is what it was.
      this.check();
      throw error;
    }
  }
}

function groupByDocument(rows: RankedChunk[]): Map<string, RankedChunk[]> {
  const documents = new Map<string, RankedChunk[]>();
  for (const row of rows) {
    const chunks = documents.get(row.document_id);
    if (chunks === undefined) documents.set(row.document_id, [row]);
    else chunks.push(row);
  }
  return documents;
}

/**
 * Exact BM25 top-k over a generation's chunks, as documents: `query` in the websearch syntax (bare
 * words, `"phrases"`, `-exclusions`; with `match` `any` a chunk holding any bare word matches, with
 * `all` only one holding every word: see anyWordQuery and toChunkQuery), the access rule and filters as a where-clause the
 * index applies before the top-k cut (so a restricted caller's page is as full as the visible
 * matches allow), documents ranked by their best chunk, each with its best CHUNKS_PER_DOCUMENT
 * chunks. The top chunks are fetched in widening rounds, each RANKING_DEPTH times the page's chunk
 * window deep (`4 × 3 × limit` chunks first, then 4 times deeper), until `limit` documents are among
 * them (or no more chunks match): the first `limit` distinct documents of the chunk ranking are
 * exactly the top `limit` documents, and each brings its best chunks among those the round read (so
 * one ranking query usually serves the page; a query over the page's documents alone would be exact
 * but costs every posting of the query's words: LanceDB walks them all under a narrow where-clause,
 * ~150 ms for a common word at 1 M chunks, bench/RESULTS.md).
 * Rounds read only ranks and ids; the shown chunks' text and fields are read once, at the end.
 *
 * `admit`, when given, is asked about candidate documents in rank order, as many at a time as the
 * page still needs (usually one call of `limit` ids), at most once about each, and drops those it
 * does not return (the caller's system of record may know of a deletion the index has not applied
 * yet); dropped documents make room for the next ones and widen the fetch like any other shortfall,
 * so they never shorten a page while more matches exist. `deadline` (epoch ms) and `signal` bound the work (TIMEOUT, ABORTED).
 *
 * `admitAppliesAccess` says that `admit` also drops every document `access` hides. The first ranking
 * round then leaves the access rule out of its where-clause (filters stay) and `admit`, asked twice
 * what the page still needs at a time, applies it; only when that round leaves the page short while
 * more chunks match do the rounds after it prefilter. Either way the page is exact: the visible rows
 * of a ranking, in order, are the visible ranking. Why: the prefilter's row mask costs in proportion
 * to the rows the caller may see (a few ms per 500,000 at a million chunks, plus a slower top-k walk),
 * while the admitted round costs what an unrestricted search does; for a caller who sees little of
 * the index the first round is wasted, so the caller passes it only for one who sees much (core's search).
 *
 * `readShown`, when given, reads the shown chunks' text and fields from the caller's copy of them
 * (core's search reads PostgreSQL's chunks of the same generation); chunks it lacks come from the index.
 *
 * With `any`, a bare word the index has no posting for (a typo) is matched to the index's terms within
 * one edit (two from TWO_EDITS_LENGTH letters), below exact matches: only a word no shown chunk holds
 * is looked up (nearTerms), and only when one has no posting is the page ranked again with its near
 * matches, so a query spelled right costs what it did. Rows not yet merged into the FTS index match a
 * misspelled word only once merged (LanceDB's scan of them matches exact terms). An `any` query
 * whose bare words are all common in the table requires them all (commonWordsRequired).
 */
export async function searchDocuments({
  generation,
  query,
  match = "any",
  limit,
  access,
  filter = null,
  admit,
  admitAppliesAccess = false,
  readShown,
  deadline = null,
  signal = null,
}: {
  generation: GenerationTable;
  query: string;
  match?: SearchMatch;
  limit: number;
  access: SearchAccess;
  filter?: SearchFilter | null;
  admit?: (documentIds: string[]) => Promise<ReadonlySet<string>>;
  admitAppliesAccess?: boolean;
  readShown?: ReadShownChunks;
  deadline?: number | null;
  signal?: AbortSignal | null;
}): Promise<SearchHit[]> {
  const budget = new QueryBudget(deadline, signal);
  const parsed = withoutStopWords(parseSearchQuery(query), generation.language.stopWords);
  // The common-terms rule (see commonWordsRequired): such a query is searched as with `all`.
  if (match === "any" && commonWordsRequired(generation, parsed)) match = "all";
  let chunkQuery = toChunkQuery(parsed, generation.language.stem, match);
  if (chunkQuery === null || limit < 1) return [];
  const where = buildSearchFilter(access, filter);
  // The where-clause of the first ranking round: without the access rule when `admit` applies it.
  const accessByAdmission = admit !== undefined && admitAppliesAccess && access.all !== true;
  const firstWhere = accessByAdmission ? buildSearchFilter({ all: true }, filter) : where;
  /** How many more candidates than the page still needs `admit` is asked about at once. */
  const askFactor = accessByAdmission ? 2 : 1;

  const verdicts = new Map<string, boolean>();
  /** The first `limit` admitted documents of `rows` (best first), each with its chunks among them. */
  const admittedTop = async (rows: RankedChunk[]): Promise<[string, RankedChunk[]][]> => {
    const documents = groupByDocument(rows);
    const ids = [...documents.keys()];
    const page: [string, RankedChunk[]][] = [];
    for (let at = 0; at < ids.length && page.length < limit; at += 1) {
      const id = ids[at] as string;
      if (admit !== undefined && !verdicts.has(id)) {
        // Asked in rank order, only as many as the page still needs: usually one call for the page.
        const asked = ids.slice(at).filter((other) => !verdicts.has(other)).slice(0, (limit - page.length) * askFactor);
        budget.check();
        const kept = await admit(asked);
        for (const other of asked) verdicts.set(other, kept.has(other));
      }
      if (verdicts.get(id) !== false) page.push([id, documents.get(id) as RankedChunk[]]);
    }
    return page;
  };

  const rankPage = async (chunkQuery: ChunkQuery): Promise<[string, RankedChunk[]][]> => {
    let fetch = limit * CHUNKS_PER_DOCUMENT * RANKING_DEPTH;
    const candidates = await topByPhraseCandidates(generation, chunkQuery, where, fetch, PHRASE_WIDENING, budget);
    if (candidates !== null) {
      // The kept rows are the exact top of the ranking, maybe less deep than `fetch` (see topByPhraseCandidates).
      const documents = await admittedTop(candidates.rows);
      if (documents.length === limit || candidates.exhausted) return documents.map(([id, chunks]) => [id, chunks.slice(0, CHUNKS_PER_DOCUMENT)]);
    }
    let top = await topChunks(generation, chunkQuery, firstWhere, fetch, budget);
    let documents = await admittedTop(top.rows);
    if (firstWhere !== where && !top.exhausted && documents.length < limit) {
      // The caller sees too little of this round's ranking: rank under the access rule from here on.
      top = await topChunks(generation, chunkQuery, where, fetch, budget);
      documents = await admittedTop(top.rows);
    }
    while (!top.exhausted && documents.length < limit) {
      fetch *= 4;
      top = await topChunks(generation, chunkQuery, where, fetch, budget);
      documents = await admittedTop(top.rows);
    }
    return documents.map(([id, chunks]) => [id, chunks.slice(0, CHUNKS_PER_DOCUMENT)]);
  };

  let page = await rankPage(chunkQuery);
  let shown = await readShownChunks(generation, page.flatMap(([, chunks]) => chunks), budget, readShown);
  if (await lacksQueryWord(generation, chunkQuery, [...shown.values()], budget)) {
    chunkQuery = { ...chunkQuery, main: chunkQuery.exact, mainScale: 1, everyWord: null };
    page = await rankPage(chunkQuery);
    shown = await readShownChunks(generation, page.flatMap(([, chunks]) => chunks), budget, readShown);
  }
  const near = match === "any" && parsed.words.length > 0 ? await nearTerms(generation, parsed.words, [...shown.values()], budget) : [];
  if (near.length > 0) {
    chunkQuery = anyWordQuery(parsed, generation.language.stem, near);
    page = await rankPage(chunkQuery);
    shown = await readShownChunks(generation, page.flatMap(([, chunks]) => chunks), budget, readShown);
  }

  const terms = highlightTerms([...parsed.words, ...parsed.phrases], generation.language.stem);
  return page.flatMap(([documentId, ranked]) => {
    const best = ranked.flatMap((row) => shown.get(row.chunk_id) ?? []);
    const first = best[0];
    if (first === undefined) return [];
    return [
      {
        documentId,
        semanticIdentifier: first.semantic_identifier,
        title: first.title,
        source: first.source,
        link: first.document_link,
        score: first._score,
        docUpdatedAt: new Date(first.doc_updated_at),
        chunks: best.map((chunk) => ({
          chunkIndex: chunk.chunk_index,
          snippet: highlightSnippet(chunk.text, terms, generation.language.stem, { near, content: chunk.content ?? null }),
          link: chunk.link,
          imageFileId: chunk.image_file_id,
          score: chunk._score,
        })),
      },
    ];
  });
}
