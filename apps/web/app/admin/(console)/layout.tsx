import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { toAppError } from "@svc/core";
import { TRPCError } from "@trpc/server";
import type { SessionUser } from "@svc/schema";
import { AdminShell } from "../../../components/admin-shell";
import { DatabaseUnavailablePage } from "../../../components/database-status";
import { getConsoleUser } from "../../../server/console-user";

// Every console page checks the session on the server before anything renders.
export const dynamic = "force-dynamic";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  let user: SessionUser | null;
  try {
    user = await getConsoleUser();
  } catch (error) {
    // The session cannot be checked without the database: say so rather than fail the page.
    if (toAppError(error instanceof TRPCError ? error.cause : error)?.code === "DATABASE_UNAVAILABLE") return <DatabaseUnavailablePage />;
    throw error;
  }
  if (!user) redirect("/admin/sign-in");
  return <AdminShell user={user}>{children}</AdminShell>;
}
