import { defineConfig } from "tsup";
import { APP_BUNDLE_OPTIONS } from "../../tsup.shared";

export default defineConfig({ entry: { main: "src/main.ts" }, ...APP_BUNDLE_OPTIONS });
