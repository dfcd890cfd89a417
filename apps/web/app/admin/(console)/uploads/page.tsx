"use client";
import { Alert, Button, Code, CopyButton, FileInput, Group, Paper, Stack, Table, Text, Title } from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Camel, FileUploadResponse } from "@svc/schema";
import { useState, type FormEvent } from "react";
import { useConsoleUser } from "../../../../components/admin-shell";
import { ConfirmAction } from "../../../../components/confirm-action";
import { DataTable, RelativeTime } from "../../../../components/data-table";
import { FileThumbnail } from "../../../../components/file-thumbnail";
import { formatBytes } from "../../../../components/format";
import { EmptyState, ErrorAlert, Loading, PageHeader, QueryError } from "../../../../components/page-parts";
import { useTRPC } from "../../../../lib/trpc/client";

/** POST /api/admin/upload: the console's cookie-authenticated twin of /api/user/file/upload. */
async function uploadImages(files: File[]): Promise<Camel<FileUploadResponse>> {
  const body = new FormData();
  for (const file of files) body.append("files", file);
  const response = await fetch("/api/admin/upload", { method: "POST", body, credentials: "same-origin" });
  const payload = (await response.json().catch(() => null)) as unknown;
  if (!response.ok) {
    const detail = (payload as { detail?: unknown } | null)?.detail;
    throw new Error(typeof detail === "string" ? detail : `Upload failed (${response.status})`);
  }
  return payload as Camel<FileUploadResponse>;
}

export default function UploadsPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const uploads = useQuery(trpc.uploads.list.queryOptions());
  const user = useConsoleUser();
  const [files, setFiles] = useState<File[]>([]);
  const upload = useMutation({
    mutationFn: uploadImages,
    onSuccess: () => {
      setFiles([]);
      return queryClient.invalidateQueries(trpc.uploads.pathFilter());
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    upload.mutate(files);
  };

  return (
    <>
      <PageHeader
        title="Uploads"
        description={
          <>
            Images for image sections: upload, then put the <code>file_id</code> in a section&apos;s <code>image_file_id</code>.
          </>
        }
      />
      <Stack gap="lg">
        <Paper withBorder radius="md" p="lg" component="section" aria-labelledby="upload-heading">
          <Title order={2} size="h4" id="upload-heading" mb="md">
            Upload images
          </Title>
          <form onSubmit={submit} aria-label="Upload images">
            <Group align="flex-end" gap="sm">
              <FileInput
                label="Images"
                description="PNG, JPEG, GIF, WebP, …; several at once"
                placeholder="Choose files"
                multiple
                accept="image/*"
                value={files}
                onChange={setFiles}
                clearable
                w={{ base: "100%", sm: 420 }}
              />
              <Button type="submit" loading={upload.isPending} disabled={files.length === 0}>
                Upload
              </Button>
            </Group>
          </form>
          <ErrorAlert error={upload.error} title="Upload failed" mt="md" />
          {upload.data ? <UploadResult result={upload.data} /> : null}
        </Paper>

        <Paper withBorder radius="md" component="section" aria-labelledby="recent-heading">
          <Title order={2} size="h4" id="recent-heading" p="md" pb={0}>
            Recent uploads
          </Title>
          {uploads.error ? (
            <QueryError error={uploads.error} onRetry={() => void uploads.refetch()} />
          ) : !uploads.data ? (
            <Loading />
          ) : uploads.data.length === 0 ? (
            <Stack p="md">
              <EmptyState title="Nothing uploaded yet" />
            </Stack>
          ) : (
            <DataTable label="Recent uploads" minWidth={680} columns={["", "Name", "file_id", "Type", { label: "Size", align: "right" }, "Uploaded", ...(user.role === "admin" ? [""] : [])]}>
                  {uploads.data.map((file) => (
                    <Table.Tr key={file.fileId}>
                      <Table.Td w={64}>
                        <FileThumbnail fileId={file.fileId} name={file.name} size={48} />
                      </Table.Td>
                      <Table.Td fw={600}>{file.name}</Table.Td>
                      <Table.Td>
                        <FileId fileId={file.fileId} />
                      </Table.Td>
                      <Table.Td>{file.fileType}</Table.Td>
                      <Table.Td ta="right">{formatBytes(file.sizeBytes)}</Table.Td>
                      <Table.Td>
                        <RelativeTime value={file.createdAt} />
                      </Table.Td>
                      {user.role === "admin" ? (
                        <Table.Td ta="right">
                          <DeleteUploadButton fileId={file.fileId} name={file.name} />
                        </Table.Td>
                      ) : null}
                    </Table.Tr>
                  ))}
            </DataTable>
          )}
        </Paper>
      </Stack>
    </>
  );
}

/** Deletes the upload after a confirmation (DELETE /user/file/{file_id}'s twin); refused while a section names it. */
function DeleteUploadButton({ fileId, name }: { fileId: string; name: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.uploads.delete.mutationOptions({ onSuccess: () => queryClient.invalidateQueries(trpc.uploads.pathFilter()) }));
  return (
    <ConfirmAction
      label="Delete"
      title={`Delete ${name}?`}
      confirmLabel="Delete file"
      buttonProps={{ size: "xs", "aria-label": `Delete ${name}` }}
      onConfirm={() => remove.mutateAsync({ fileId })}
    >
      The file is removed; image sections can no longer name <Code>{fileId}</Code>. A file that a document still shows is kept.
    </ConfirmAction>
  );
}

function UploadResult({ result }: { result: Camel<FileUploadResponse> }) {
  return (
    <Stack gap="xs" mt="md" role="status">
      {result.userFiles.map((file) => (
        <Alert key={file.fileId} color="green" variant="light" p="xs">
          <Group gap="xs">
            <Text size="sm" fw={600}>
              {file.name}
            </Text>
            <FileId fileId={file.fileId} />
          </Group>
        </Alert>
      ))}
      {result.rejectedFiles.map((file) => (
        <Alert key={file.fileName} color="red" variant="light" p="xs">
          <Text size="sm">
            <b>{file.fileName}</b> was rejected: {file.reason}
          </Text>
        </Alert>
      ))}
    </Stack>
  );
}

function FileId({ fileId }: { fileId: string }) {
  return (
    <Group gap={4} wrap="nowrap">
      <Code>{fileId}</Code>
      <CopyButton value={fileId}>
        {({ copied, copy }) => (
          <Button
            size="compact-xs"
            variant="subtle"
            color={copied ? "teal" : "gray"}
            onClick={copy}
            aria-label={`Copy file_id ${fileId}`}
            style={{ flexShrink: 0 }}
          >
            {copied ? "Copied" : "Copy"}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}
