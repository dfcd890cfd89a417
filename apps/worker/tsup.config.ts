import { defineConfig } from "tsup";
import { APP_BUNDLE_OPTIONS } from "../../tsup.shared";

export default defineConfig({ entry: { main: "src/main.ts", maintain: "src/maintain.ts" }, ...APP_BUNDLE_OPTIONS });
