import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { AdminShell } from "../../../components/admin-shell";
import { getConsoleUser } from "../../../server/console-user";

// Every console page checks the session on the server before anything renders.
export const dynamic = "force-dynamic";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await getConsoleUser();
  if (!user) redirect("/admin/sign-in");
  return <AdminShell user={user}>{children}</AdminShell>;
}
