import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ChunkRow } from "../chunk-row";
import { closeSearchIndex, openSearchIndex, type SearchIndex } from "../open-search-index";

/** A search index in a fresh temporary directory, and how to remove it. */
export async function openTempSearchIndex(): Promise<{ index: SearchIndex; dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "svc-search-index-"));
  const index = await openSearchIndex({ uri: dir });
  return {
    index,
    dir,
    remove: async () => {
      closeSearchIndex(index);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A chunk row with plain defaults: public, of pair 1, updated 2024-01-01. */
export function chunkRow(documentId: string, text: string, overrides: Partial<ChunkRow> = {}): ChunkRow {
  return {
    documentId,
    chunkIndex: 0,
    text,
    semanticIdentifier: `Document ${documentId}`,
    title: null,
    source: "web",
    documentLink: null,
    link: null,
    imageFileId: null,
    docUpdatedAt: new Date("2024-01-01T00:00:00Z"),
    ccPairIds: [1],
    tags: [],
    isPublic: true,
    externalUserEmails: [],
    externalUserGroupIds: [],
    ...overrides,
  };
}
