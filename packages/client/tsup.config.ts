import { defineConfig } from "tsup";
import { LIBRARY_BUNDLE_OPTIONS } from "../../tsup.shared";

// openapi-fetch stays a dependency; the generated types are inlined into the .d.ts.
export default defineConfig(LIBRARY_BUNDLE_OPTIONS);
