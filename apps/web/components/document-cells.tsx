"use client";
import { Anchor, Spoiler, Text } from "@mantine/core";
import Link from "next/link";
import { documentHref } from "./format";

/** A document in a table: its name linking to its page, its id beneath. */
export function DocumentName({ documentId, semanticId }: { documentId: string; semanticId: string }) {
  return (
    <>
      <Anchor component={Link} href={documentHref(documentId)} size="sm" fw={600}>
        {semanticId}
      </Anchor>
      <Text size="xs" c="dimmed" ff="monospace">
        {documentId}
      </Text>
    </>
  );
}

/** Why a document's indexing failed, folded when long. */
export function FailureReason({ error }: { error: string }) {
  return (
    <Spoiler maxHeight={40} showLabel="more" hideLabel="less">
      <Text size="xs" c="red" className="svc-pre">
        {error}
      </Text>
    </Spoiler>
  );
}
