import { CONNECTOR_ROLES } from "@svc/core";
import { restRoute } from "../../../../../lib/rest";
import { handleUpload } from "../../../../../lib/upload";

export const dynamic = "force-dynamic";

/** POST /api/user/file/upload: multipart/form-data, one or more parts named `files`. */
export const POST = restRoute(CONNECTOR_ROLES, handleUpload);
