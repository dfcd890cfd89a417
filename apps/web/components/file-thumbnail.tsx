"use client";
import { Anchor, Image } from "@mantine/core";

/** The console's URL of an uploaded file (served to signed-in sessions by /api/admin/files/{file_id}). */
export function fileHref(fileId: string): string {
  return `/api/admin/files/${encodeURIComponent(fileId)}`;
}

/** A small preview of an uploaded image that opens the full file. */
export function FileThumbnail({ fileId, name, size = 64 }: { fileId: string; name: string; size?: number }) {
  return (
    <Anchor href={fileHref(fileId)} target="_blank" rel="noreferrer" display="inline-block" lh={0}>
      <Image
        src={fileHref(fileId)}
        alt={`Thumbnail of ${name}`}
        w={size}
        h={size}
        fit="contain"
        radius="sm"
        bg="var(--mantine-color-default-hover)"
        loading="lazy"
      />
    </Anchor>
  );
}
