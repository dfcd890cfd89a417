"use client";
import { Button } from "@mantine/core";
import type { UseMutationResult } from "@tanstack/react-query";

/** Retry of one failed document (documents.retry), wherever failed documents are listed. */
export function RetryDocumentButton({
  document,
  retry,
}: {
  document: { documentId: string; semanticId: string };
  retry: Pick<UseMutationResult<unknown, unknown, { documentId: string }>, "mutate" | "isPending" | "variables">;
}) {
  return (
    <Button
      size="xs"
      variant="light"
      onClick={() => retry.mutate({ documentId: document.documentId })}
      loading={retry.isPending && retry.variables?.documentId === document.documentId}
      aria-label={`Retry ${document.semanticId}`}
    >
      Retry
    </Button>
  );
}
