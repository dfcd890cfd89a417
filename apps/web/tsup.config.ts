import { defineConfig } from "tsup";
import { APP_BUNDLE_OPTIONS } from "../../tsup.shared";

// The production server, with the route handlers it dispatches to; Next.js stays external like every
// npm package.
export default defineConfig({ entry: { server: "server.ts" }, ...APP_BUNDLE_OPTIONS });
