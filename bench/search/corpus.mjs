// Deterministic chunks for bench/search: a seeded PRNG and Zipf-distributed words over a 30,000-word
// made-up vocabulary (rank 0 is the most common word), ~80 words a chunk. The same seed gives the
// same corpus, the same documents and the same queries on every machine.
import { createRandom, drawWord } from "../index/corpus.mjs";

export const VOCABULARY_SIZE = 30_000;
export const WORDS_PER_CHUNK = 80;
const ZIPF_EXPONENT = 1;
const SYLLABLES = "ka lo mi ne ru sa te vo an el in or um bar den fil gor hal jun kel mor nal pim quo ras sel tor vin wex yal zor tri pra ble cho sti".split(" ");

export { createRandom };

/** Distinct words of 3–5 syllables (long enough that no stemmer folds two of them together often). */
function createWords(random) {
  const words = [];
  const seen = new Set();
  while (words.length < VOCABULARY_SIZE) {
    const count = 3 + Math.floor(random() * 3);
    let word = "";
    for (let i = 0; i < count; i += 1) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    if (!seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  }
  return words;
}

export function createVocabulary(seed) {
  const random = createRandom(seed);
  const words = createWords(random);
  const cumulative = new Float64Array(words.length);
  let total = 0;
  for (let rank = 0; rank < words.length; rank += 1) {
    total += 1 / (rank + 1) ** ZIPF_EXPONENT;
    cumulative[rank] = total;
  }
  return { words, cumulative, total };
}

/** One chunk's text: 60–100 words (80 on average). */
export function chunkText(random, vocabulary) {
  const length = WORDS_PER_CHUNK - 20 + Math.floor(random() * 41);
  const words = new Array(length);
  for (let i = 0; i < length; i += 1) words[i] = drawWord(random, vocabulary);
  return words.join(" ");
}
