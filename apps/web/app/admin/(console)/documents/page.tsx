"use client";
import {
  Anchor,
  Badge,
  Box,
  Button,
  Group,
  MultiSelect,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  TagsInput,
  Text,
} from "@mantine/core";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { DOCUMENT_SOURCES, type Camel, type DocumentSource, type SearchResult } from "@svc/schema";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { Suspense, useMemo, useState, type FormEvent } from "react";
import { ExternalLink } from "../../../../components/external-link";
import { documentHref, formatDateTime, plural, sourceLabel } from "../../../../components/format";
import { EmptyState, Loading, PageHeader, QueryError } from "../../../../components/page-parts";
import { listParam, useUrlState } from "../../../../components/use-url-state";
import { useTRPC } from "../../../../lib/trpc/client";
import { TextField } from "../../../../components/text-field";

/** The search request as it travels, in camelCase (dates as ISO strings; the server's REST schema parses them). */
interface SearchRequest {
  query: string;
  match: "any" | "all";
  limit: number;
  filters: {
    sources: DocumentSource[] | null;
    ccPairIds: number[] | null;
    tags: { key: string; value: string }[] | null;
    docUpdatedAfter: string | null;
    docUpdatedBefore: string | null;
  };
  principal: null;
}

const LIMITS = ["10", "25", "50", "100"];
/** How the query's words match (the request's `match`): any of them, ranked, or every one. */
const MATCHES = [
  { value: "any", label: "Any of the words" },
  { value: "all", label: "All of the words" },
];
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export default function DocumentsPage() {
  return (
    <Suspense fallback={<Loading />}>
      <DocumentSearch />
    </Suspense>
  );
}

type Params = ReturnType<typeof useUrlState>["params"];

/** The search request the URL describes; null without a query. */
function requestFromParams(params: Params): SearchRequest | null {
  const query = params.get("q")?.trim();
  if (!query) return null;
  const sources = listParam(params, "sources", DOCUMENT_SOURCES);
  const pairs = (params.get("pairs") ?? "")
    .split(",")
    .filter((value) => /^\d+$/.test(value))
    .map(Number);
  const tags = params
    .getAll("tag")
    .map((tag) => ({ key: tag.slice(0, tag.indexOf("=")), value: tag.slice(tag.indexOf("=") + 1) }))
    .filter((tag) => tag.key !== "");
  const after = params.get("after");
  const before = params.get("before");
  const limit = Number(params.get("limit") ?? 10);
  return {
    query,
    match: params.get("match") === "all" ? "all" : "any",
    limit: LIMITS.includes(String(limit)) ? limit : 10,
    filters: {
      sources: sources.length ? sources : null,
      ccPairIds: pairs.length ? pairs : null,
      tags: tags.length ? tags : null,
      // Whole days: from the start of `after` to the end of `before`, in UTC.
      docUpdatedAfter: after && DATE.test(after) ? `${after}T00:00:00Z` : null,
      docUpdatedBefore: before && DATE.test(before) ? `${before}T23:59:59.999Z` : null,
    },
    principal: null,
  };
}

function DocumentSearch() {
  const trpc = useTRPC();
  const { params, update } = useUrlState();
  const request = useMemo(() => requestFromParams(params), [params]);
  const search = useQuery({
    ...trpc.documents.search.queryOptions(request ?? { query: "-", limit: 10, filters: null, principal: null }, {
      placeholderData: keepPreviousData,
    }),
    enabled: request !== null,
  });

  return (
    <>
      <PageHeader title="Documents" description="Search what the index holds, then open a document to see its sections, chunks and indexing." actions={<OpenById />} />
      <SearchForm key={params.toString()} params={params} onSearch={(changes) => update(changes)} />
      {request === null ? (
        <EmptyState title="Search the index">
          Type a question or a few words. Documents holding more of them, and rarer ones, rank higher, and a misspelled word
          finds the word meant; “All of the words” requires every one. Quote a phrase to require it, put - before a word to
          exclude it; filters narrow by source, pair, metadata tag and update date.
        </EmptyState>
      ) : search.error ? (
        <QueryError error={search.error} onRetry={() => void search.refetch()} title="The search failed" />
      ) : !search.data ? (
        <Loading label="Searching…" />
      ) : search.data.results.length === 0 ? (
        <EmptyState title={`Nothing found for “${request.query}”`}>Try other words, or fewer filters.</EmptyState>
      ) : (
        <Stack gap="sm" aria-label="Search results" component="section">
          <Text size="sm" c="dimmed">
            {plural(search.data.results.length, "document")}, best first
          </Text>
          {search.data.results.map((result) => (
            <ResultCard key={result.documentId} result={result} />
          ))}
        </Stack>
      )}
    </>
  );
}

function SearchForm({ params, onSearch }: { params: Params; onSearch: (changes: Record<string, string | string[] | null>) => void }) {
  // Edited locally, applied to the URL (and so searched) on submit.
  const [query, setQuery] = useState(params.get("q") ?? "");
  const [sources, setSources] = useState<string[]>(listParam(params, "sources", DOCUMENT_SOURCES));
  const [pairs, setPairs] = useState<string[]>((params.get("pairs") ?? "").split(",").filter(Boolean));
  const [tags, setTags] = useState<string[]>(params.getAll("tag"));
  const [after, setAfter] = useState(params.get("after") ?? "");
  const [before, setBefore] = useState(params.get("before") ?? "");
  const [limit, setLimit] = useState(params.get("limit") ?? "10");
  const [match, setMatch] = useState(params.get("match") === "all" ? "all" : "any");

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSearch({
      q: query.trim() || null,
      sources: sources.join(",") || null,
      pairs: pairs.filter((value) => /^\d+$/.test(value)).join(",") || null,
      tag: tags.filter((tag) => tag.includes("=")),
      after: after || null,
      before: before || null,
      limit: limit === "10" ? null : limit,
      match: match === "any" ? null : match,
    });
  };

  return (
    <Paper withBorder p="md" radius="md" mb="lg" component="form" onSubmit={submit} aria-label="Search documents">
      <Stack gap="md">
        <Group align="flex-end" gap="sm" wrap="nowrap">
          <TextField
            label="Search"
            placeholder="e.g. holiday policy"
            value={query}
            onValueChange={setQuery}
            style={{ flex: 1 }}
            type="search"
          />
          <Button type="submit" disabled={query.trim() === ""}>
            Search
          </Button>
        </Group>
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="md">
          <MultiSelect
            label="Sources"
            placeholder={sources.length ? undefined : "Any source"}
            data={DOCUMENT_SOURCES.map((value) => ({ value, label: sourceLabel(value) }))}
            value={sources}
            onChange={setSources}
            searchable
            clearable
          />
          <TagsInput
            label="Connector ids"
            placeholder={pairs.length ? undefined : "Any pair; type an id, Enter"}
            value={pairs}
            onChange={(values) => setPairs(values.filter((value) => /^\d+$/.test(value)))}
            clearable
          />
          {/* A long tag is ellipsized in its pill; the field's hover text shows every tag whole. */}
          <Box title={tags.join(", ") || undefined}>
            <TagsInput
              label="Metadata tags"
              placeholder={tags.length ? undefined : "key=value, Enter"}
              value={tags}
              onChange={(values) => setTags(values.filter((value) => value.indexOf("=") > 0))}
              clearable
            />
          </Box>
          <Group grow gap="xs" align="flex-end">
            <TextField label="Updated from" type="date" value={after} onValueChange={setAfter} />
            <TextField label="to" type="date" value={before} onValueChange={setBefore} />
          </Group>
        </SimpleGrid>
        <Group gap="md">
          <Select label="Match" data={MATCHES} value={match} onChange={(value) => setMatch(value ?? "any")} allowDeselect={false} w={180} />
          <Select label="Results" data={LIMITS} value={limit} onChange={(value) => setLimit(value ?? "10")} allowDeselect={false} w={120} />
        </Group>
      </Stack>
    </Paper>
  );
}

/**
 * The snippet is the chunk's text HTML-escaped by the server with matches in <mark>; anything else
 * that looks like a tag is escaped again here, so only <mark> can ever render.
 */
function snippetHtml(snippet: string): string {
  return snippet.replace(/<(?!\/?mark>)/g, "&lt;");
}

function ResultCard({ result }: { result: Camel<SearchResult> }) {
  return (
    <Paper withBorder p="md" radius="md" component="article" aria-label={result.semanticIdentifier}>
      {/* On a phone the badges go under the title rather than squeeze it into a narrow column. */}
      <Group justify="space-between" align="flex-start" gap="xs">
        <Box style={{ flex: "1 1 16rem", minWidth: 0 }}>
          <Anchor component={Link} href={documentHref(result.documentId)} fw={700} className="svc-break">
            {result.semanticIdentifier}
          </Anchor>
          {result.title && result.title !== result.semanticIdentifier ? (
            <Text size="sm" c="dimmed">
              {result.title}
            </Text>
          ) : null}
        </Box>
        <Group gap={6} wrap="nowrap">
          <Badge variant="light">{sourceLabel(result.source)}</Badge>
          <Badge variant="default" title="Relevance score of the best chunk">
            {result.score.toFixed(3)}
          </Badge>
        </Group>
      </Group>
      <Text size="xs" c="dimmed" mb="xs" className="svc-break">
        <code>{result.documentId}</code> · updated {formatDateTime(result.docUpdatedAt)}
        {result.link ? (
          <>
            {" · "}
            <ExternalLink href={result.link}>source</ExternalLink>
          </>
        ) : null}
      </Text>
      <Stack gap={6}>
        {result.chunks.map((chunk) => (
          <Text
            key={chunk.chunkIndex}
            size="sm"
            className="svc-snippet"
            pl="sm"
            style={{ borderLeft: "3px solid var(--mantine-color-indigo-light)" }}
            dangerouslySetInnerHTML={{ __html: `${snippetHtml(chunk.snippet)}` }}
          />
        ))}
      </Stack>
    </Paper>
  );
}

function OpenById() {
  const router = useRouter();
  const [id, setId] = useState("");
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (id.trim()) router.push(documentHref(id.trim()));
      }}
      aria-label="Open a document by id"
    >
      <Group gap="xs" align="flex-end">
        <TextField aria-label="Document id" placeholder="Document id" value={id} onValueChange={setId} size="sm" />
        <Button type="submit" variant="default" size="sm" disabled={!id.trim()}>
          Open
        </Button>
      </Group>
    </form>
  );
}

