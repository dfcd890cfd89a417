import { AppError, uploadFiles, type IncomingFile, type Principal } from "@svc/core";
import { cleanFileName, MAX_FILES_PER_UPLOAD, pydanticErrors, type Camel, type FileUploadResponse } from "@svc/schema";
import { webEnv } from "./env";
import { readBodyBytes } from "./rest/read-request";
import type { Services } from "./services";

/**
 * An image upload handed to core's uploadFiles, in the scope of the key or session that sends it.
 * Shared by POST /api/user/file/upload (bearer key) and POST /api/admin/upload (the console's session).
 */
export async function handleUpload({
  request,
  principal,
  services,
}: {
  request: Request;
  principal: Principal;
  services: Services;
}): Promise<Camel<FileUploadResponse>> {
  return uploadFiles({ db: services.db, principal, files: await readUploadedFiles(request), maxFileBytes: webEnv().SVC_MAX_UPLOAD_FILE_BYTES });
}

/**
 * The files of an upload request: multipart/form-data with one or more parts named `files`, read
 * with the request limit (422 at `["body","files"]` when there are none).
 */
export async function readUploadedFiles(request: Request): Promise<IncomingFile[]> {
  const env = webEnv();
  const contentType = request.headers.get("content-type") ?? "";
  if (!contentType.toLowerCase().startsWith("multipart/form-data")) {
    throw new AppError("VALIDATION_FAILED", "Expected multipart/form-data", {
      detail: [{ type: "missing", loc: ["body", "files"], msg: "Field required", input: null }],
    });
  }
  const body = await readBodyBytes(request, env.SVC_MAX_UPLOAD_REQUEST_BYTES);
  const form = await parseForm(body, contentType);
  const parts = form.getAll("files").filter((part) => typeof part !== "string");
  if (parts.length > MAX_FILES_PER_UPLOAD) {
    throw new AppError("VALIDATION_FAILED", "Too many files", {
      detail: [{ ...pydanticErrors.tooLong(MAX_FILES_PER_UPLOAD, parts.length), loc: ["body", "files"], input: null }],
    });
  }
  const files: IncomingFile[] = [];
  for (const part of parts) {
    files.push({ name: cleanFileName(part.name), bytes: new Uint8Array(await part.arrayBuffer()) });
  }
  if (files.length === 0) {
    throw new AppError("VALIDATION_FAILED", "No files", {
      detail: [{ type: "missing", loc: ["body", "files"], msg: "Field required", input: null }],
    });
  }
  return files;
}

async function parseForm(body: Uint8Array, contentType: string): Promise<FormData> {
  try {
    return await new Response(body as Uint8Array<ArrayBuffer>, { headers: { "content-type": contentType } }).formData();
  } catch {
    throw new AppError("VALIDATION_FAILED", "Malformed multipart body", {
      detail: [{ type: "value_error", loc: ["body"], msg: "Value error, the multipart body could not be parsed", input: null }],
    });
  }
}
