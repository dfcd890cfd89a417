import { readUploadedFile } from "@svc/core";
import { sessionRoute } from "../../../../../server/session-route";

export const dynamic = "force-dynamic";

/**
 * GET /api/admin/files/{file_id}: an uploaded image for the console's thumbnails (session cookie,
 * same-origin only; a file of another scope is 404 as an unknown one). Served with the type detected at upload, never sniffed, and under a CSP that lets
 * the bytes run nothing should one be opened as a page.
 */
export const GET = sessionRoute(async ({ request, principal, services }) => {
  const fileId = decodeURIComponent(new URL(request.url).pathname.split("/").at(-1) ?? "");
  const file = await readUploadedFile({ db: services.db, principal, fileId });
  return new Response(Buffer.from(file.data), {
    headers: {
      "Content-Type": file.fileType,
      "Content-Length": String(file.data.byteLength),
      "Content-Disposition": `inline; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox; frame-ancestors 'none'",
      // A file never changes under its id; the cache stays the browser's own.
      "Cache-Control": "private, max-age=3600, immutable",
    },
  });
});
