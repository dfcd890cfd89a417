import { handleUpload } from "../../../../server/upload";
import { sessionRoute } from "../../../../server/session-route";

export const dynamic = "force-dynamic";

/** POST /api/admin/upload: the console's image upload (session cookie), same body and answer as /api/user/file/upload. */
export const POST = sessionRoute(handleUpload);
