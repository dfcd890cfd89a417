import { defineConfig } from "tsup";
import { LIBRARY_BUNDLE_OPTIONS } from "../../tsup.shared";

// Built so that the typed client's users (and the apps) import it without a TypeScript loader.
export default defineConfig(LIBRARY_BUNDLE_OPTIONS);
