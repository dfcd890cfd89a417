// Deterministic prose for bench/index: a seeded PRNG, log-normal document sizes, Zipf-distributed words
// (common English words first, then made-up ones, so that both the tokenizer and to_tsvector see a
// realistic vocabulary), sentences, paragraphs and a few sections per larger document.

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function createRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMON_WORDS = (
  "the of and to a in is that for it as was with be by on not he this are or his from at which but have an " +
  "they you were their one all we can her has there been if more when will would who so no time team data " +
  "service customer report project system process update review release plan issue quarter support market " +
  "product design policy change request account budget meeting contract security access network server " +
  "document search index platform pipeline schedule deadline approval invoice revenue forecast migration " +
  "incident outage latency deployment configuration database backup storage compliance audit training " +
  "onboarding handbook holiday office manager engineer analyst director partner vendor region sales legal " +
  "finance operations marketing research quality testing feedback roadmap milestone priority risk owner"
).split(" ");
const SYLLABLES = "ka lo mi ne ru sa te vo an el in or um bar den fil gor hal jun kel mor nal pim quo ras sel tor vin wex yal zor tri pra ble cho sti".split(" ");
const VOCABULARY_SIZE = 8000;
const ZIPF_EXPONENT = 1.05;

/**
 * Made-up words of `minSyllables` to `minSyllables + 2` syllables, distinct, appended to `words` until
 * it holds `size` of them. bench/search draws its vocabulary the same way.
 */
export function addSyllableWords(random, words, { size, minSyllables }) {
  const seen = new Set(words);
  while (words.length < size) {
    const syllables = minSyllables + Math.floor(random() * 3);
    let word = "";
    for (let i = 0; i < syllables; i += 1) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    if (!seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  }
  return words;
}

/** The Zipf table `drawWord` samples from: rank r (0 the most common) weighs 1 / (r + 1)^exponent. */
export function zipfVocabulary(words, exponent) {
  const cumulative = new Float64Array(words.length);
  let total = 0;
  for (let rank = 0; rank < words.length; rank += 1) {
    total += 1 / (rank + 1) ** exponent;
    cumulative[rank] = total;
  }
  return { words, cumulative, total };
}

function createVocabulary(random) {
  const words = addSyllableWords(random, [...COMMON_WORDS], { size: VOCABULARY_SIZE, minSyllables: 2 });
  return zipfVocabulary(words, ZIPF_EXPONENT);
}

/** Draws a word by rank: binary search over the cumulative Zipf weights. */
export function drawWord(random, { words, cumulative, total }) {
  const target = random() * total;
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (cumulative[middle] < target) low = middle + 1;
    else high = middle;
  }
  return words[low];
}

function sentence(random, vocabulary) {
  const length = 6 + Math.floor(random() * 19);
  const words = [];
  for (let i = 0; i < length; i += 1) {
    let word = drawWord(random, vocabulary);
    if (i === 0) word = word[0].toUpperCase() + word.slice(1);
    else if (random() < 0.02) word = String(Math.floor(random() * 10_000));
    if (i < length - 1 && random() < 0.08) word += ",";
    words.push(word);
  }
  return words.join(" ") + (random() < 0.05 ? "?" : ".");
}

/** At least `size` characters of paragraphs (2–7 sentences each, a blank line between), cut at a word end. */
function prose(random, vocabulary, size) {
  const parts = [];
  let length = 0;
  while (length < size) {
    const sentences = 2 + Math.floor(random() * 6);
    const paragraph = [];
    for (let i = 0; i < sentences; i += 1) paragraph.push(sentence(random, vocabulary));
    const text = paragraph.join(" ");
    length += (parts.length > 0 ? 2 : 0) + text.length;
    parts.push(text);
  }
  const text = parts.join("\n\n");
  if (text.length <= size) return text;
  const cut = text.indexOf(" ", size);
  return text.slice(0, cut >= 0 && cut < size + 40 ? cut : size);
}

const gaussian = (random) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

/**
 * A corpus generator: `document(id)` returns the ingestion body of the next document and its text size.
 * Sizes are log-normal around `medianBytes`, clamped to [minBytes, maxBytes].
 */
export function createCorpus({ seed, medianBytes = 2048, sigma = 1.5, minBytes = 200, maxBytes = 1024 * 1024 }) {
  const random = createRandom(seed);
  const vocabulary = createVocabulary(createRandom(0x5eed));
  const TEAMS = ["platform", "search", "support", "sales", "finance", "legal"];

  /** `size` and `sectionCount` override the drawn ones (the 20 MB document is one section). */
  function document(id, { size, sectionCount } = {}) {
    size ??= Math.round(Math.min(maxBytes, Math.max(minBytes, medianBytes * Math.exp(sigma * gaussian(random)))));
    // Larger documents come in a few sections (1–7), of random shares of the size.
    sectionCount ??= size < 1000 ? 1 : 1 + Math.floor(random() * Math.min(7, size / 1000));
    const weights = Array.from({ length: sectionCount }, () => 0.2 + random());
    const weightSum = weights.reduce((sum, weight) => sum + weight, 0);
    const sections = weights.map((weight, index) => ({
      text: prose(random, vocabulary, Math.max(50, Math.round((size * weight) / weightSum))),
      link: `https://wiki.example.com/${id}#section-${index + 1}`,
    }));
    const title = sentence(random, vocabulary).split(" ").slice(0, 3 + Math.floor(random() * 5)).join(" ").replace(/[.,?]$/, "");
    const bytes = sections.reduce((sum, section) => sum + section.text.length, 0);
    const body = JSON.stringify({
      document: {
        id,
        semantic_identifier: title,
        sections,
        metadata: { team: TEAMS[Math.floor(random() * TEAMS.length)], tags: ["bench", `q${1 + Math.floor(random() * 4)}`] },
        doc_updated_at: "2026-11-01T09:00:00Z",
      },
    });
    return { id, body, bytes };
  }

  return { document };
}
