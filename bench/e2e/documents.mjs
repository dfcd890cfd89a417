import { createRandom } from "../index/corpus.mjs";

// The documents bench/e2e sends to both targets: seeded, so every run and both targets get the same
// bodies; small, like most documents connectors send (2–3 sections of ~100 words, ~2–3 KB of JSON).
const WORDS = (
  "planning roadmap ingestion queue search ranking support workflow release incident review customer " +
  "latency budget storage index shard replica backup restore migration schema contract endpoint token " +
  "connector credential permission group owner policy audit retention export import dashboard alert " +
  "meeting decision summary action follow owner deadline quarter team platform mobile billing invoice " +
  "onboarding handbook security training hiring interview feedback design prototype launch metric goal"
).split(" ");

function sentence(next, words) {
  const picked = Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]);
  return `${picked[0][0].toUpperCase()}${picked[0].slice(1)} ${picked.slice(1).join(" ")}.`;
}

/** The JSON body of the ingestion of document number `sequence` under `id`. */
export function smallDocumentBody(id, sequence) {
  const next = createRandom(sequence + 1);
  const sectionCount = 2 + Math.floor(next() * 2);
  const sections = Array.from({ length: sectionCount }, (_, index) => {
    // ~100 words: eight to ten sentences of 10–14 words.
    const sentences = Array.from({ length: 8 + Math.floor(next() * 3) }, () => sentence(next, 10 + Math.floor(next() * 5)));
    return { text: sentences.join(" "), link: `https://wiki.example.com/e2e/${sequence}#${index}` };
  });
  return JSON.stringify({
    document: {
      id,
      semantic_identifier: `E2E note ${sequence}`,
      sections,
      metadata: { team: WORDS[sequence % WORDS.length], tags: ["e2e", `batch-${sequence % 7}`] },
      doc_updated_at: "2026-11-01T09:00:00Z",
    },
  });
}
