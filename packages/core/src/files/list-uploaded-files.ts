import type { DbOrTx } from "@svc/db";
import type { Camel, UserFile } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { toUserFile, userFileSelect } from "./upload-files";
import { visibleUploadsWhere } from "./upload-scope";

/** The most recent uploads the principal may use (upload-scope.ts), newest first. */
export async function listUploadedFiles({ db, principal, limit }: { db: DbOrTx; principal: Principal; limit: number }): Promise<Camel<UserFile>[]> {
  const rows = await db.uploadedFile.findMany({
    where: visibleUploadsWhere(principal),
    select: userFileSelect,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
  });
  return rows.map(toUserFile);
}
