import { describe, expect, it } from "vitest";
import { chunkKey, parseChunkKey } from "./chunk-row";

describe("parseChunkKey", () => {
  it("gives back the document id and chunk index of chunkKey, colons in the id included", () => {
    for (const key of [{ documentId: "doc", chunkIndex: 0 }, { documentId: "a:b::c", chunkIndex: 12 }, { documentId: "", chunkIndex: 3 }]) {
      expect(parseChunkKey(chunkKey(key))).toEqual(key);
    }
  });
});
