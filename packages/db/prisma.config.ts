// Prisma 7 configuration: used by `prisma generate`. Migrations run through the 6.x CLI (see
// prisma/README.md) because Prisma 7 `migrate` needs a native engine these machines cannot fetch.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "../../prisma/schema.prisma",
});
