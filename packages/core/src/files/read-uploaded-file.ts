import type { DbOrTx } from "@svc/db";
import type { Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import { FILE_NOT_FOUND, normalizeFileId } from "./upload-files";
import { visibleUploadsWhere } from "./upload-scope";

/** An uploaded file's bytes with the type its first bytes were recognised as at upload. */
export interface UploadedFileContent {
  name: string;
  fileType: string;
  data: Uint8Array;
}

/**
 * One uploaded file, for the console's thumbnails. A file outside the principal's scope
 * (upload-scope.ts) is NOT_FOUND exactly as an id that is not a file's, never a 5xx.
 */
export async function readUploadedFile({ db, principal, fileId }: { db: DbOrTx; principal: Principal; fileId: string }): Promise<UploadedFileContent> {
  const file = await db.uploadedFile.findFirst({
    where: { ...visibleUploadsWhere(principal), fileId: normalizeFileId(fileId) },
    select: { name: true, fileType: true, data: true },
  });
  if (!file) throw new AppError("NOT_FOUND", FILE_NOT_FOUND);
  return file;
}
