// Small display helpers shared by the console's pages.

const UPPERCASE_WORDS = new Set(["s3", "r2", "oci", "api", "imap"]);
const SOURCE_LABELS: Partial<Record<string, string>> = {
  github: "GitHub",
  gitlab: "GitLab",
  gitbook: "GitBook",
  bookstack: "BookStack",
  hubspot: "HubSpot",
  sharepoint: "SharePoint",
  clickup: "ClickUp",
  mediawiki: "MediaWiki",
  xenforo: "XenForo",
  testrail: "TestRail",
  requesttracker: "Request Tracker",
  document360: "Document360",
  federated_slack: "Federated Slack",
};

/** `google_drive` → "Google Drive", `s3` → "S3". */
export function sourceLabel(source: string): string {
  return (
    SOURCE_LABELS[source] ??
    source
      .split("_")
      .map((word) => (UPPERCASE_WORDS.has(word) ? word.toUpperCase() : word.charAt(0).toUpperCase() + word.slice(1)))
      .join(" ")
  );
}

const numberFormat = new Intl.NumberFormat("en-US");
export function formatCount(value: number): string {
  return numberFormat.format(value);
}

/** "1 document", "2 documents", "1,204 documents": every count the console writes out agrees with its noun. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatCount(count)} ${count === 1 ? singular : pluralForm}`;
}

const dateTimeFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "medium" });
export function formatDateTime(value: Date | string | null | undefined): string {
  if (value === null || value === undefined) return "—";
  return dateTimeFormat.format(typeof value === "string" ? new Date(value) : value);
}

const relativeFormat = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const RELATIVE_STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 30],
  ["month", 12],
  ["year", Number.POSITIVE_INFINITY],
];
/** "3 minutes ago"; the exact time belongs in a title attribute next to it. */
export function formatRelative(value: Date | string | null | undefined, now = Date.now()): string {
  if (value === null || value === undefined) return "never";
  let amount = ((typeof value === "string" ? Date.parse(value) : value.getTime()) - now) / 1000;
  for (const [unit, size] of RELATIVE_STEPS) {
    if (Math.abs(amount) < size) return relativeFormat.format(Math.round(amount), unit);
    amount /= size;
  }
  return "—";
}

export function formatDuration(start: Date | null, end: Date | null): string {
  if (!start || !end) return "—";
  const seconds = Math.max(0, (end.getTime() - start.getTime()) / 1000);
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 90) return `${seconds.toFixed(1)} s`;
  return `${Math.round(seconds / 60)} min`;
}

/** A latency: "0.8 ms", "42 ms", "1.25 s". */
export function formatMilliseconds(ms: number): string {
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
}

/** The console's path of a document; ids may hold `/`, so they travel encoded in one segment. */
export function documentHref(documentId: string): string {
  return `/admin/documents/${encodeURIComponent(documentId)}`;
}

/** A tRPC error's message, for an Alert; an input validation error arrives as zod's JSON list of issues. */
export function errorMessage(error: unknown): string {
  if (!(error instanceof Error) || !error.message) return "Something went wrong.";
  if (error.message.startsWith("[")) {
    try {
      const issues = JSON.parse(error.message) as { message?: string; path?: unknown[] }[];
      return issues.map((issue) => [issue.path?.join("."), issue.message].filter(Boolean).join(": ")).join("; ");
    } catch {
      return error.message;
    }
  }
  return error.message;
}
