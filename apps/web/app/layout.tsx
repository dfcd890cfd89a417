import { ColorSchemeScript, mantineHtmlProps } from "@mantine/core";
import type { ReactNode } from "react";

export const metadata = { title: "svc", description: "Document ingestion and indexing for enterprise search" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    // The admin console (Mantine) sets its color scheme on <html> before hydration.
    <html lang="en" {...mantineHtmlProps}>
      <head>
        <ColorSchemeScript />
      </head>
      <body>{children}</body>
    </html>
  );
}
