// Deterministic chunks for bench/search: a seeded PRNG and Zipf-distributed words over a 30,000-word
// made-up vocabulary (rank 0 is the most common word), ~80 words a chunk. The same seed gives the
// same corpus, the same documents and the same queries on every machine.
import { addSyllableWords, createRandom, drawWord, zipfVocabulary } from "../index/corpus.mjs";

export const VOCABULARY_SIZE = 30_000;
export const WORDS_PER_CHUNK = 80;
const ZIPF_EXPONENT = 1;

export { createRandom };

export function createVocabulary(seed) {
  // Distinct words of 3–5 syllables: long enough that no stemmer folds two of them together often.
  const words = addSyllableWords(createRandom(seed), [], { size: VOCABULARY_SIZE, minSyllables: 3 });
  return zipfVocabulary(words, ZIPF_EXPONENT);
}

/** One chunk's text: 60–100 words (80 on average). */
export function chunkText(random, vocabulary) {
  const length = WORDS_PER_CHUNK - 20 + Math.floor(random() * 41);
  const words = new Array(length);
  for (let i = 0; i < length; i += 1) words[i] = drawWord(random, vocabulary);
  return words.join(" ");
}

/**
 * Chunks of bench document `number` as the index stores them (a ChunkRow each): `count` chunks of
 * fresh prose, with the document's fields; `fields` overrides them (access, pairs).
 */
export function benchChunks({ random, vocabulary, documentId, number, count, fields = {} }) {
  return Array.from({ length: count }, (_, chunkIndex) => ({
    documentId,
    chunkIndex,
    text: chunkText(random, vocabulary),
    semanticIdentifier: `Bench document ${number}`,
    title: `Bench document ${number}`,
    source: "web",
    documentLink: `https://example.com/doc/${number}`,
    link: `https://example.com/doc/${number}#${chunkIndex}`,
    imageFileId: null,
    docUpdatedAt: new Date(Date.UTC(2025, 0, 1)),
    ccPairIds: [0],
    tags: [],
    isPublic: null,
    externalUserEmails: [],
    externalUserGroupIds: [],
    ...fields,
  }));
}
