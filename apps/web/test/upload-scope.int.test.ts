// docs/decisions.md "Uploads": an upload belongs to the scope of the key or session that made it. A
// scoped key lists, reads and names in image sections only uploads sharing one of its pairs (another
// scope's file is as unknown as a missing one); an unscoped key uses every upload. An admin deletes
// an upload, after which no image section names it. One request carries at most 100 files.
import { MAX_FILES_PER_UPLOAD } from "@svc/schema";
import { createTestPair } from "@svc/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as readConsoleFile } from "../app/api/admin/files/[fileId]/route";
import { ingestionBody, useTestApp } from "./app";
import { PNG, uploadFiles, uploadForm } from "./factories";
import { expectTrpcError, signedIn, type Caller } from "./trpc/console";

const app = useTestApp();

const pairs = { a: 0, b: 0 };
const keys = { curatorA: "", curatorB: "", curatorAB: "", adminA: "", adminB: "" };
const files = { a: "", b: "", ab: "", unscoped: "" };
const sessions = {} as { curatorA: Caller; admin: Caller; curatorAToken: string };

/** Uploads one PNG with the key and returns its file_id. */
async function upload(key: string, name: string): Promise<string> {
  const response = await uploadFiles(app, uploadForm([name, PNG]), key);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { user_files: { file_id: string }[] };
  const fileId = body.user_files[0]?.file_id;
  if (!fileId) throw new Error(`${name} was rejected`);
  return fileId;
}

/** Ingests a document of one image section naming the file into the pair, with the key. */
function ingestImage(key: string, ccPairId: number, fileId: string, id = `doc-${fileId}`): Promise<Response> {
  return app.ingest(ingestionBody({ id, sections: [{ image_file_id: fileId, link: "https://img" }] }, { cc_pair_id: ccPairId }), key);
}

/** What an ingestion naming the file answers, with the id itself replaced, to compare with an unknown id's answer. */
async function imageAnswer(key: string, ccPairId: number, fileId: string): Promise<{ status: number; body: string }> {
  const response = await ingestImage(key, ccPairId, fileId);
  return { status: response.status, body: (await response.text()).replaceAll(fileId, "<id>").replaceAll(`doc-<id>`, "<doc>") };
}

/** GET /api/admin/files/{file_id} as the console's thumbnails fetch it, with the session. */
function readFile(sessionToken: string, fileId: string): Promise<Response> {
  return readConsoleFile(
    new Request(`http://localhost:3000/api/admin/files/${fileId}`, { headers: { cookie: `svc_session=${sessionToken}`, "sec-fetch-site": "same-origin" } }),
  );
}

beforeAll(async () => {
  pairs.a = await createTestPair(app.db, { name: "Team A wiki", access: "private" });
  pairs.b = await createTestPair(app.db, { name: "Team B wiki", access: "private" });
  keys.curatorA = await app.createKey("curator", [pairs.a]);
  keys.curatorB = await app.createKey("curator", [pairs.b]);
  keys.curatorAB = await app.createKey("curator", [pairs.a, pairs.b]);
  keys.adminA = await app.createKey("admin", [pairs.a]);
  keys.adminB = await app.createKey("admin", [pairs.b]);
  files.a = await upload(keys.curatorA, "a.png");
  files.b = await upload(keys.curatorB, "b.png");
  files.ab = await upload(keys.curatorAB, "ab.png");
  files.unscoped = await upload(app.adminKey, "unscoped.png");
  const curatorA = await signedIn(keys.curatorA);
  Object.assign(sessions, { curatorA: curatorA.caller, curatorAToken: curatorA.token, admin: (await signedIn(app.adminKey)).caller });
});

describe("an upload's scope", () => {
  it("is stored on its row: the uploader's pairs, none for an unscoped key", async () => {
    const rows = await app.db.uploadedFile.findMany({ select: { fileId: true, scopeCcPairIds: true } });
    const scopeOf = (fileId: string) => rows.find((row) => row.fileId === fileId)?.scopeCcPairIds;
    expect(scopeOf(files.a)).toEqual([pairs.a]);
    expect(scopeOf(files.ab)).toEqual([pairs.a, pairs.b]);
    expect(scopeOf(files.unscoped)).toEqual([]);
  });

  it("limits the console's listing to uploads sharing a pair with the session; an unscoped admin sees all", async () => {
    expect((await sessions.curatorA.uploads.list()).map((file) => file.name).sort()).toEqual(["a.png", "ab.png"]);
    expect((await sessions.admin.uploads.list()).map((file) => file.name).sort()).toEqual(["a.png", "ab.png", "b.png", "unscoped.png"]);
  });

  it("serves the console another scope's file as 404, the answer for an unknown id", async () => {
    expect((await readFile(sessions.curatorAToken, files.a)).status).toBe(200);
    const unknown = await readFile(sessions.curatorAToken, "00000000-0000-4000-8000-000000000000");
    const other = await readFile(sessions.curatorAToken, files.b);
    expect(unknown.status).toBe(404);
    expect({ status: other.status, body: (await other.json()) as unknown }).toEqual({ status: 404, body: (await unknown.json()) as unknown });
    expect((await readFile(sessions.curatorAToken, files.unscoped)).status).toBe(404);
  });

  it("lets an image section name only files of the key's scope: another scope's id is the 422 of an unknown id", async () => {
    const unknown = await imageAnswer(keys.curatorA, pairs.a, "00000000-0000-4000-8000-000000000000");
    expect(unknown.status).toBe(422);
    expect(await imageAnswer(keys.curatorA, pairs.a, files.b)).toEqual(unknown);
    expect(await imageAnswer(keys.curatorA, pairs.a, files.unscoped)).toEqual(unknown);
    expect((await ingestImage(keys.curatorA, pairs.a, files.a)).status).toBe(200);
    expect((await ingestImage(keys.curatorA, pairs.a, files.ab)).status).toBe(200);
    // An unscoped key names any upload.
    expect((await ingestImage(app.adminKey, pairs.b, files.b, "admin-doc")).status).toBe(200);
  });

  it("names a newer-path upload by its snapshot id (the file_id) under the same scope; the older path's integer id names no file", async () => {
    const projectUpload = async (key: string) => {
      const response = await app.request("POST", "/api/user/projects/file/upload", { body: uploadForm(["p.png", PNG]), key });
      const body = (await response.json()) as { user_files: { id: string; file_id: string }[] };
      return body.user_files[0] ?? { id: "", file_id: "" };
    };
    const unknown = await imageAnswer(keys.curatorA, pairs.a, "00000000-0000-4000-8000-000000000000");
    const ofA = await projectUpload(keys.curatorA);
    const ofB = await projectUpload(keys.curatorB);
    expect((await ingestImage(keys.curatorA, pairs.a, ofA.id, "snapshot-id")).status).toBe(200);
    expect((await ingestImage(keys.curatorA, pairs.a, ofA.file_id, "snapshot-file-id")).status).toBe(200);
    expect(await imageAnswer(keys.curatorA, pairs.a, ofB.id)).toEqual(unknown);

    const older = await uploadFiles(app, uploadForm(["v1.png", PNG]), keys.curatorA);
    const [v1] = ((await older.json()) as { user_files: { id: number }[] }).user_files;
    expect(v1?.id).toEqual(expect.any(Number));
    expect((await ingestImage(keys.curatorA, pairs.a, String(v1?.id), "v1-id")).status).toBe(422);
  });
});

describe("POST /api/user/file/upload", () => {
  it(`stores at most ${MAX_FILES_PER_UPLOAD} files a request: more is a 422 naming the limit, and nothing is stored`, async () => {
    const before = await app.db.uploadedFile.count();
    const many = Array.from({ length: MAX_FILES_PER_UPLOAD + 1 }, (_, index): [string, Uint8Array] => [`f${index}.png`, PNG]);
    const response = await uploadFiles(app, uploadForm(...many));
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({
      detail: [
        {
          type: "too_long",
          loc: ["body", "files"],
          msg: `List should have at most ${MAX_FILES_PER_UPLOAD} items after validation, not ${MAX_FILES_PER_UPLOAD + 1}`,
          input: null,
          ctx: { field_type: "List", max_length: MAX_FILES_PER_UPLOAD, actual_length: MAX_FILES_PER_UPLOAD + 1 },
        },
      ],
    });
    expect(await app.db.uploadedFile.count()).toBe(before);
    expect((await uploadFiles(app, uploadForm(...many.slice(1)))).status).toBe(200);
  });
});

describe("DELETE /api/user/file/{file_id}", () => {
  const remove = (fileId: string, key?: string) => app.request("DELETE", `/api/user/file/${fileId}`, { key });

  it("deletes an upload, after which an image section naming it is the 422 of an unknown id", async () => {
    const fileId = await upload(keys.adminA, "gone.png");
    expect((await remove(fileId, keys.curatorA)).status).toBe(403);
    const response = await remove(fileId, keys.adminA);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ file_id: fileId, name: "gone.png" });
    expect(await app.db.uploadedFile.count({ where: { fileId } })).toBe(0);
    expect((await remove(fileId, keys.adminA)).status).toBe(404);
    const unknown = await imageAnswer(keys.adminA, pairs.a, "00000000-0000-4000-8000-000000000000");
    expect(await imageAnswer(keys.adminA, pairs.a, fileId)).toEqual(unknown);
  });

  it("keeps what a scoped admin may not take: another scope's file (404), a file shared with another pair (403)", async () => {
    expect((await remove(files.a, keys.adminB)).status).toBe(404);
    expect((await remove(files.unscoped, keys.adminA)).status).toBe(404);
    expect((await remove(files.ab, keys.adminA)).status).toBe(403);
    expect((await remove("not-a-uuid", keys.adminA)).status).toBe(404);
    expect(await app.db.uploadedFile.count({ where: { fileId: { in: [files.a, files.unscoped, files.ab] } } })).toBe(3);
  });

  it("keeps a file an image section still names (409)", async () => {
    const fileId = await upload(keys.adminA, "used.png");
    expect((await ingestImage(keys.adminA, pairs.a, fileId)).status).toBe(200);
    expect((await remove(fileId, keys.adminA)).status).toBe(409);
    expect(await app.db.uploadedFile.count({ where: { fileId } })).toBe(1);
  });

  it("is in the console too, for admins", async () => {
    const fileId = await upload(app.adminKey, "console.png");
    await expectTrpcError(sessions.curatorA.uploads.delete({ fileId }), "FORBIDDEN");
    expect(await sessions.admin.uploads.delete({ fileId })).toMatchObject({ fileId, name: "console.png" });
    expect((await sessions.admin.uploads.list()).map((file) => file.fileId)).not.toContain(fileId);
    await expectTrpcError(sessions.admin.uploads.delete({ fileId }), "NOT_FOUND");
  });
});
