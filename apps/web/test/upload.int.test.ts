import { describe, expect, it } from "vitest";
import { ingestionBody, useTestApp } from "./app";
import { JPEG, PNG, uploadFiles, uploadForm } from "./factories";

const app = useTestApp({ SVC_MAX_UPLOAD_FILE_BYTES: "4096" });

interface UploadResponse {
  user_files: { id: number; name: string; file_id: string; file_type: string; size_bytes: number; created_at: string }[];
  rejected_files: { file_name: string; reason: string }[];
}

describe("POST /api/user/file/upload", () => {
  it("stores images, recognised by content whatever their name, and rejects the rest per file", async () => {
    const response = await uploadFiles(
      app,
      uploadForm(["diagram.png", PNG], ["photo.txt", JPEG], ["notes.png", new TextEncoder().encode("just text")], ["huge.png", new Uint8Array(5000).fill(0x89)]),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as UploadResponse;
    expect(body.user_files.map((file) => [file.name, file.file_type, file.size_bytes])).toEqual([
      ["diagram.png", "image/png", PNG.length],
      ["photo.txt", "image/jpeg", JPEG.length],
    ]);
    expect(body.user_files[0]).toEqual({
      id: expect.any(Number) as unknown,
      name: "diagram.png",
      file_id: expect.any(String) as unknown,
      file_type: "image/png",
      size_bytes: PNG.length,
      created_at: expect.stringMatching(/Z$/) as unknown,
    });
    expect(body.rejected_files).toEqual([
      { file_name: "notes.png", reason: expect.stringContaining("Unsupported file type") as unknown },
      { file_name: "huge.png", reason: expect.stringContaining("4096") as unknown },
    ]);
    const stored = await app.db.uploadedFile.findUnique({ where: { fileId: body.user_files[0]?.file_id ?? "" } });
    expect(Buffer.from(stored?.data ?? [])).toEqual(Buffer.from(PNG));
  });

  it("needs a key like the other endpoints", async () => {
    expect((await uploadFiles(app, uploadForm(["a.png", PNG]), null)).status).toBe(401);
    expect((await uploadFiles(app, uploadForm(["a.png", PNG]), await app.createKey("basic"))).status).toBe(403);
  });

  it("answers 422 when there is no files part", async () => {
    const response = await app.request("POST", "/api/user/file/upload", { body: new FormData() });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ detail: [expect.objectContaining({ type: "missing", loc: ["body", "files"] })] });
  });

  it("lets image sections reference uploaded files and refuses unknown ids at the section's loc", async () => {
    const uploaded = (await (await uploadFiles(app, uploadForm(["chart.png", PNG]))).json()) as UploadResponse;
    const fileId = uploaded.user_files[0]?.file_id;
    const ok = await app.ingest(
      ingestionBody({ id: "with-image", sections: [{ text: "intro" }, { image_file_id: fileId, link: "https://img" }] }),
    );
    expect(ok.status).toBe(200);
    const sections = await app.db.documentSection.findMany({ where: { documentId: "with-image" }, orderBy: { position: "asc" } });
    expect(sections.map((section) => [section.kind, section.imageFileId])).toEqual([
      ["text", null],
      ["image", fileId],
    ]);

    const refused = await app.ingest(
      ingestionBody({ id: "unknown-image", sections: [{ text: "intro" }, { image_file_id: "no-such-file" }] }),
    );
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({
      detail: [expect.objectContaining({ loc: ["body", "document", "sections", 1, "image_file_id"], type: "value_error" })],
    });
    expect(await app.db.document.findUnique({ where: { id: "unknown-image" } })).toBeNull();
  });
});
