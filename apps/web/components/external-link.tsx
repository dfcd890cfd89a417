"use client";
import { Anchor, Text } from "@mantine/core";
import type { ReactNode } from "react";

/** The schemes a URL from a document may be followed with; anything else (data:, javascript:, file:, …) is only shown. */
const FOLLOWED_SCHEMES = new Set(["http:", "https:", "mailto:"]);

/**
 * The URL to put in an anchor's href, or null when the value must not become a link: it does not
 * parse as an absolute URL or its scheme is not http, https or mailto. The parsed form is returned,
 * so the browser follows exactly the URL whose scheme was checked.
 */
export function followableUrl(value: string): string | null {
  try {
    const url = new URL(value);
    return FOLLOWED_SCHEMES.has(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * A URL that came with a document (a section's, a chunk's, a search result's link): a link that opens
 * in a new tab when followableUrl allows it, else the URL as plain text, so a `data:` or `javascript:`
 * URL can be read but never clicked. Every URL the console shows from documents goes through here.
 */
export function ExternalLink({ href, children }: { href: string; children?: ReactNode }) {
  const url = followableUrl(href);
  if (url === null) {
    return (
      <Text span size="xs" c="dimmed" className="svc-unfollowed-url" title={`${href}\nNot a link: only http, https and mailto URLs open`} maw={360} truncate="end">
        {href}
      </Text>
    );
  }
  return (
    <Anchor href={url} target="_blank" rel="noreferrer" size="xs" className="svc-break">
      {children ?? href} ↗
    </Anchor>
  );
}
