import type { Camel, CategorizedFilesSnapshot } from "@svc/schema";
import { uploadFiles, type UploadFilesInput } from "./upload-files";

/**
 * Stores files exactly as `uploadFiles` does and answers in the shape of the original's newer upload
 * path, `POST /user/projects/file/upload` (docs/decisions.md "Uploads"): its clients read
 * `file_id` from a `UserFileSnapshot`.
 */
export async function uploadProjectFiles(input: UploadFilesInput): Promise<Camel<CategorizedFilesSnapshot>> {
  const uploaded = await uploadFiles(input);
  return {
    userFiles: uploaded.userFiles.map((file) => ({
      id: file.fileId,
      tempId: null,
      name: file.name,
      projectId: null,
      userId: null,
      fileId: file.fileId,
      createdAt: file.createdAt,
      status: "COMPLETED",
      lastAccessedAt: null,
      fileType: file.fileType,
      chatFileType: "image",
      tokenCount: null,
      chunkCount: null,
    })),
    rejectedFiles: uploaded.rejectedFiles,
  };
}
