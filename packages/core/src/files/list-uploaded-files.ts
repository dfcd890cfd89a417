import type { DbOrTx } from "@svc/db";
import type { Camel, UserFile } from "@svc/schema";
import { toUserFile, userFileSelect } from "./upload-files";

/**
 * The most recently uploaded files, newest first. Uploads are not tied to a key or a pair (an image
 * is referenced by its `file_id` from any document), so every console user sees the same list.
 */
export async function listUploadedFiles({ db, limit }: { db: DbOrTx; limit: number }): Promise<Camel<UserFile>[]> {
  const rows = await db.uploadedFile.findMany({ select: userFileSelect, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: limit });
  return rows.map(toUserFile);
}
