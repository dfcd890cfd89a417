import type { CategorizedFilesSnapshot } from "@svc/schema";
import { uploadFiles, type UploadFilesInput } from "./upload-files";

/**
 * Stores files exactly as `uploadFiles` does and answers in the shape of the original's newer upload
 * path, `POST /user/projects/file/upload` (docs/decisions.md "Uploads"): its clients read
 * `file_id` from a `UserFileSnapshot`.
 */
export async function uploadProjectFiles(input: UploadFilesInput): Promise<CategorizedFilesSnapshot> {
  const uploaded = await uploadFiles(input);
  return {
    user_files: uploaded.user_files.map((file) => ({
      id: file.file_id,
      temp_id: null,
      name: file.name,
      project_id: null,
      user_id: null,
      file_id: file.file_id,
      created_at: file.created_at,
      status: "COMPLETED",
      last_accessed_at: null,
      file_type: file.file_type,
      chat_file_type: "image",
      token_count: null,
      chunk_count: null,
    })),
    rejected_files: uploaded.rejected_files,
  };
}
