import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "../../../components/sign-in-form";
import { getConsoleUser } from "../../../server/console-user";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const { next } = await searchParams;
  const target = safeNext(typeof next === "string" ? next : undefined);
  if (await getConsoleUser()) redirect(target);
  return <SignInForm next={target} />;
}

/** Only a console path: never an open redirect to another site. */
function safeNext(next: string | undefined): string {
  return next && next.startsWith("/admin") && !next.startsWith("//") ? next : "/admin/connectors";
}
