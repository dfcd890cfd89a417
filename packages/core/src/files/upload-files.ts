import { Prisma, type Db } from "@svc/db";
import type { Camel, FileUploadResponse, UserFile } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import { ACCEPTED_IMAGE_TYPES, detectImageType } from "./detect-image-type";
import { canDeleteUpload, uploadScopeOf, visibleUploadsWhere } from "./upload-scope";

// The one writer of `uploaded_file`: files are stored with their uploader's scope, and deleted.

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
  /** The uploader: the files belong to its scope. */
  principal: Principal;
  files: readonly IncomingFile[];
  maxFileBytes: number;
}

export async function uploadFiles({ db, principal, files, maxFileBytes }: UploadFilesInput): Promise<Camel<FileUploadResponse>> {
  const response: Camel<FileUploadResponse> = { userFiles: [], rejectedFiles: [] };
  const scopeCcPairIds = uploadScopeOf(principal);
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
        scopeCcPairIds,
      },
      select: userFileSelect,
    });
    response.userFiles.push(toUserFile(stored));
  }
  return response;
}

/**
 * Deletes an upload the principal sees (NOT_FOUND otherwise, as for an unknown id) and whose every
 * pair is its own (FORBIDDEN otherwise). A file an image section still names stays (CONFLICT): its
 * documents would lose their image; after the delete no new section may name it.
 */
export async function deleteUploadedFile({ db, principal, fileId }: { db: Db; principal: Principal; fileId: string }): Promise<Camel<UserFile>> {
  const where = { ...visibleUploadsWhere(principal), fileId: normalizeFileId(fileId) };
  const file = await db.uploadedFile.findFirst({ where, select: { ...userFileSelect, scopeCcPairIds: true } });
  if (!file) throw new AppError("NOT_FOUND", FILE_NOT_FOUND);
  if (!canDeleteUpload(principal, file.scopeCcPairIds)) {
    throw new AppError("FORBIDDEN", "This key may not delete the file: it belongs to connector-credential pairs outside the key's scope.");
  }
  try {
    await db.uploadedFile.delete({ where: { id: file.id } });
  } catch (error) {
    // The foreign key of document_section (ON DELETE RESTRICT) also covers a section written meanwhile.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2003") throw new AppError("CONFLICT", FILE_IN_USE);
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2025") throw new AppError("NOT_FOUND", FILE_NOT_FOUND);
    throw error;
  }
  return toUserFile(file);
}

export const FILE_NOT_FOUND = "File not found";
const FILE_IN_USE = "The file is named by an image section of a document; delete or re-ingest those documents first.";

const FILE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A file id as stored (lower-case UUID), or an id that names no file when it is not a UUID. */
export function normalizeFileId(fileId: string): string {
  return FILE_ID.test(fileId) ? fileId.toLowerCase() : "";
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
