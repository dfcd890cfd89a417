import type { ReactNode } from "react";

export const metadata = { title: "svc", description: "Document ingestion and indexing for enterprise search" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: "system-ui, sans-serif", margin: "2rem" }}>{children}</body>
    </html>
  );
}
