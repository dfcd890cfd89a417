import "@mantine/core/styles.css";
import "@mantine/charts/styles.css";
import "../../components/console.css";
import type { Metadata } from "next";
import type { ReactNode } from "react";
import { Providers } from "../../components/providers";

export const metadata: Metadata = { title: { default: "svc admin", template: "%s · svc admin" } };

export default function AdminLayout({ children }: { children: ReactNode }) {
  return <Providers>{children}</Providers>;
}
