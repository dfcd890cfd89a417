import type { DbOrTx } from "@svc/db";
import { AppError } from "../errors/app-error";

const FILE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An uploaded file's bytes with the type its first bytes were recognised as at upload. */
export interface UploadedFileContent {
  name: string;
  fileType: string;
  data: Uint8Array;
}

/**
 * One uploaded file, for the console's thumbnails. Uploads belong to no key or pair (listUploadedFiles),
 * so any console session may read any of them; an id that is not a file's is NOT_FOUND, never a 5xx.
 */
export async function readUploadedFile({ db, fileId }: { db: DbOrTx; fileId: string }): Promise<UploadedFileContent> {
  const file = FILE_ID.test(fileId)
    ? await db.uploadedFile.findUnique({ where: { fileId: fileId.toLowerCase() }, select: { name: true, fileType: true, data: true } })
    : null;
  if (!file) throw new AppError("NOT_FOUND", "File not found");
  return file;
}
