import type { GenerationTable } from "./generation-table";
import { normalizeWord } from "./highlight-snippet";

/**
 * Which words are common in a generation's table: the share of its chunks holding each word, as
 * highlighting normalizes words (normalizeWord), estimated from an evenly spread sample of chunks.
 * searchDocuments uses it for the common-terms rule of `any` (a query whose every bare word is
 * common requires them all, as Lucene's CommonTermsQuery does: see searchDocuments).
 *
 * LanceDB 0.39 does not expose its FTS index's document frequencies, so they are sampled: SAMPLE_ROWS
 * chunks read by offset in SAMPLE_RUNS runs spread over the table, once per table handle and again when older than
 * REFRESH_MS, always in the background (a search never waits for a sample; until one is taken, no
 * word counts as common). A table of fewer than MIN_ROWS chunks has no common words: an OR over
 * such a table costs little (bench/relevance's ~1,400 chunks: p50 ~9 ms), and its shares are noisy.
 */
export const COMMON_SHARE = 0.1;
const SAMPLE_ROWS = 500;
const SAMPLE_RUNS = 20;
const YIELD_ROWS = 25;
const MIN_ROWS = 10_000;
const REFRESH_MS = 10 * 60_000;

/** A word's tokens as the index's `simple` tokenizer splits them: runs of letters and digits. */
export const TOKEN = /[\p{L}\p{N}]+/gu;

interface Sample {
  /** Normalized word → share of the sampled chunks holding it; null: the table is too small. */
  shares: ReadonlyMap<string, number> | null;
  takenAt: number;
}

interface SampleState {
  sample: Sample | null;
  pending: Promise<Sample | null> | null;
}

const states = new WeakMap<object, SampleState>();

function stateOf(generation: GenerationTable): SampleState {
  let state = states.get(generation.table);
  if (state === undefined) {
    state = { sample: null, pending: null };
    states.set(generation.table, state);
  }
  return state;
}

async function takeSample(generation: GenerationTable): Promise<Sample> {
  const rows = await generation.table.countRows();
  if (rows < MIN_ROWS) return { shares: null, takenAt: Date.now() };
  // SAMPLE_RUNS runs of consecutive rows spread over the table: a run shares the reads of its pages
  // (1,000 single rows at 100,000 chunks took 4-11 s on the loaded bench machine, 1,000 in runs 0.8 s).
  const run = SAMPLE_ROWS / SAMPLE_RUNS;
  const offsets = Array.from({ length: SAMPLE_ROWS }, (_, i) => Math.floor((Math.floor(i / run) * rows) / SAMPLE_RUNS) + (i % run));
  const texts = (await generation.table.takeOffsets(offsets).select(["text"]).toArray()) as { text: string }[];
  const stem = generation.language.stem;
  const counts = new Map<string, number>();
  for (const [at, { text }] of texts.entries()) {
    // Counted in slices, yielding between them: the caller is a web process serving requests.
    if (at % YIELD_ROWS === 0) await new Promise((resolve) => setImmediate(resolve));
    const words = new Set([...text.matchAll(TOKEN)].map((m) => normalizeWord(m[0], stem)));
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return { shares: new Map([...counts].map(([word, count]) => [word, count / Math.max(1, texts.length)])), takenAt: Date.now() };
}

/**
 * The table's sample, taken now (or the one being taken) unless a fresh one is at hand; null when
 * sampling failed (tried again at the next call). Tests await it; searches use commonWordsAtHand.
 */
export function sampleCommonWords(generation: GenerationTable): Promise<Sample | null> {
  const state = stateOf(generation);
  if (state.sample !== null && Date.now() - state.sample.takenAt < REFRESH_MS) return Promise.resolve(state.sample);
  state.pending ??= takeSample(generation)
    .then((sample) => (state.sample = sample))
    .catch(() => null)
    .finally(() => {
      state.pending = null;
    });
  return state.pending;
}

/**
 * Whether every one of `words` is common in the table by the sample at hand (each of its tokens held
 * by at least COMMON_SHARE of the chunks); false while no sample is at hand. Starts a sample in the
 * background when none is fresh.
 */
export function allCommon(generation: GenerationTable, words: readonly string[]): boolean {
  void sampleCommonWords(generation);
  const shares = stateOf(generation).sample?.shares;
  if (shares == null || words.length === 0) return false;
  const stem = generation.language.stem;
  return words.every((word) => {
    const tokens = [...word.matchAll(TOKEN)];
    return tokens.length > 0 && tokens.every((m) => (shares.get(normalizeWord(m[0], stem)) ?? 0) >= COMMON_SHARE);
  });
}
