// What bench/relevance measures of a ranking, and the typo it injects into a query.

export const CUTOFF = 10;

/**
 * nDCG@10 with linear gains (trec_eval's form): DCG = Σ gain(rank) / log2(rank + 1) over the first 10
 * results, divided by the DCG of the judged documents in the best order. `ranked`: document ids, best
 * first; `gains`: document id → gain (> 0) of the query's judged-relevant documents.
 */
export function ndcgAt10(ranked, gains) {
  const dcg = (values) => values.slice(0, CUTOFF).reduce((sum, gain, index) => sum + gain / Math.log2(index + 2), 0);
  const ideal = dcg([...gains.values()].sort((a, b) => b - a));
  return ideal === 0 ? 0 : dcg(ranked.map((id) => gains.get(id) ?? 0)) / ideal;
}

/** Share of the first 10 results that are relevant (a shorter list counts its missing places as misses). */
export const precisionAt10 = (ranked, gains) => ranked.slice(0, CUTOFF).filter((id) => gains.has(id)).length / CUTOFF;

/** 1 / rank of the first relevant result within the first 10, else 0. */
export function reciprocalRankAt10(ranked, gains) {
  const index = ranked.slice(0, CUTOFF).findIndex((id) => gains.has(id));
  return index === -1 ? 0 : 1 / (index + 1);
}

/** Means of the three measures over a run: `rankings` query id → ranked ids. */
export function score(rankings, judgments) {
  const totals = { ndcg: 0, precision: 0, mrr: 0, noResult: 0 };
  for (const [queryId, ranked] of rankings) {
    const gains = judgments.get(queryId);
    totals.ndcg += ndcgAt10(ranked, gains);
    totals.precision += precisionAt10(ranked, gains);
    totals.mrr += reciprocalRankAt10(ranked, gains);
    if (ranked.length === 0) totals.noResult += 1;
  }
  const n = rankings.size;
  return { ndcg: totals.ndcg / n, precision: totals.precision / n, mrr: totals.mrr / n, noResult: totals.noResult, queries: n };
}

const LETTERS = "abcdefghijklmnopqrstuvwxyz";

/** Places of the words a typo may hit or a keyword query keeps: 4 letters or more, not a stop word. */
const keywordPlaces = (tokens, stopWords) =>
  tokens.flatMap((token, index) => (/^[a-z]{4,}$/i.test(token) && !stopWords.has(token.toLowerCase()) ? [index] : []));

/**
 * What a user types who searches with a few words instead of a question: the query's `count` rarest
 * words (see keywordPlaces) that the collection holds (`rarity`: word → documents holding it), each
 * once, in the query's order. A query without such a word is returned whole.
 */
export function keywordQuery(query, stopWords, rarity, count = 3) {
  const tokens = query.split(" ");
  const seen = new Set();
  const words = [];
  for (const index of keywordPlaces(tokens, stopWords)) {
    const key = tokens[index].toLowerCase();
    if (seen.has(key) || rarity(key) === 0) continue;
    seen.add(key);
    words.push(tokens[index]);
  }
  if (words.length === 0) return query;
  const kept = new Set([...words].sort((a, b) => rarity(a) - rarity(b)).slice(0, count));
  return words.filter((word) => kept.has(word)).join(" ");
}

/**
 * The query with one typo: a word of 4 letters or more that is not a stop word (a typo in one would
 * add a word, not lose one) gets one edit at a random place: a substitution, deletion, insertion or
 * transposition of neighbours, drawn alike, never leaving the word as it was. The word is drawn with
 * `random`, or, with `rarity` (word → documents holding it), is the rarest one the collection holds
 * (the first of equals): the word that carries most of a long query's ranking. A query with no such
 * word is returned as it is.
 */
export function injectTypo(query, random, stopWords, rarity) {
  const tokens = query.split(" ");
  const candidates = keywordPlaces(tokens, stopWords);
  const held = rarity ? candidates.filter((index) => rarity(tokens[index]) > 0) : candidates;
  if (held.length === 0) return { query, typo: null };
  const index = rarity
    ? held.reduce((rarest, candidate) => (rarity(tokens[candidate]) < rarity(tokens[rarest]) ? candidate : rarest))
    : held[Math.floor(random() * held.length)];
  const word = tokens[index];
  const pick = (count) => Math.floor(random() * count);
  let edited = word;
  while (edited === word) {
    const at = pick(word.length);
    const letter = LETTERS[pick(LETTERS.length)];
    const kind = pick(4);
    if (kind === 0) edited = word.slice(0, at) + letter + word.slice(at + 1);
    else if (kind === 1) edited = word.slice(0, at) + word.slice(at + 1);
    else if (kind === 2) edited = word.slice(0, at) + letter + word.slice(at);
    else if (at < word.length - 1) edited = word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2);
  }
  tokens[index] = edited;
  return { query: tokens.join(" "), typo: `${word} → ${edited}` };
}
