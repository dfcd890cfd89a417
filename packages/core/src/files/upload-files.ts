import type { Db } from "@svc/db";
import type { Camel, FileUploadResponse, UserFile } from "@svc/schema";
import { ACCEPTED_IMAGE_TYPES, detectImageType } from "./detect-image-type";

export interface IncomingFile {
  name: string;
  bytes: Uint8Array;
}

/**
 * Stores the acceptable files of one upload and reports the others with a reason; one bad file
 * does not fail the rest.
 */
export interface UploadFilesInput {
  db: Db;
  files: readonly IncomingFile[];
  maxFileBytes: number;
}

export async function uploadFiles({ db, files, maxFileBytes }: UploadFilesInput): Promise<Camel<FileUploadResponse>> {
  const response: Camel<FileUploadResponse> = { userFiles: [], rejectedFiles: [] };
  for (const file of files) {
    const reason = rejectionReason(file, maxFileBytes);
    if (reason) {
      response.rejectedFiles.push({ fileName: file.name, reason });
      continue;
    }
    const stored = await db.uploadedFile.create({
      data: {
        name: file.name,
        fileType: detectImageType(file.bytes) ?? "application/octet-stream",
        sizeBytes: file.bytes.byteLength,
        data: file.bytes as Uint8Array<ArrayBuffer>,
      },
      select: userFileSelect,
    });
    response.userFiles.push(toUserFile(stored));
  }
  return response;
}

function rejectionReason(file: IncomingFile, maxFileBytes: number): string | null {
  if (file.bytes.byteLength === 0) return "The file is empty.";
  if (file.bytes.byteLength > maxFileBytes) {
    return `The file is ${file.bytes.byteLength} bytes; the limit is ${maxFileBytes} bytes.`;
  }
  if (!detectImageType(file.bytes)) {
    return `Unsupported file type: only ${ACCEPTED_IMAGE_TYPES.join(", ")} are accepted (checked by content).`;
  }
  return null;
}

/** What the upload answer and the console's listing show of a stored file (never its bytes). */
export const userFileSelect = { id: true, name: true, fileId: true, fileType: true, sizeBytes: true, createdAt: true } as const;

export function toUserFile(row: {
  id: number;
  name: string;
  fileId: string;
  fileType: string;
  sizeBytes: number;
  createdAt: Date;
}): Camel<UserFile> {
  return {
    id: row.id,
    name: row.name,
    fileId: row.fileId,
    fileType: row.fileType,
    sizeBytes: row.sizeBytes,
    createdAt: row.createdAt.toISOString(),
  };
}
