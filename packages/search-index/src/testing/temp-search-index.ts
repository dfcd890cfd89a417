import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { ChunkRow } from "../chunk-row";
import { createGenerationTable } from "../create-generation-table";
import type { GenerationTable } from "../generation-table";
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

export interface TempSearchIndex {
  index: SearchIndex;
  dir: string;
  /** A new generation table with the next unused id. */
  newGeneration: (textSearchConfig?: string) => Promise<GenerationTable>;
}

/**
 * A test file's search index: opened in a temporary directory before its tests and removed after
 * them (`index` and `dir` can be read once beforeAll has run).
 */
export function useTempSearchIndex(): TempSearchIndex {
  let opened: Awaited<ReturnType<typeof openTempSearchIndex>> | undefined;
  let nextGeneration = 1;
  beforeAll(async () => {
    opened = await openTempSearchIndex();
  });
  afterAll(async () => {
    await opened?.remove();
  });
  const current = () => {
    if (!opened) throw new Error("the temporary search index opens in beforeAll");
    return opened;
  };
  return {
    get index() {
      return current().index;
    },
    get dir() {
      return current().dir;
    },
    newGeneration: (textSearchConfig = "english") =>
      createGenerationTable({ index: current().index, generationId: nextGeneration++, textSearchConfig }),
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
