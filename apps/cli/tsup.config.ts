import { defineConfig } from "tsup";
import { APP_BUNDLE_OPTIONS } from "../../tsup.shared";

export default defineConfig({ entry: { svc: "src/svc.ts" }, ...APP_BUNDLE_OPTIONS });
