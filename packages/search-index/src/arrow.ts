import { createRequire } from "node:module";
import type * as Arrow from "apache-arrow";

/**
 * apache-arrow as LanceDB loads it (its CommonJS build). An ESM import would be a second copy of the
 * library: LanceDB then rebuilds ("sanitizes") every table it is given, and that fails on the batches
 * built here. Sharing its copy hands the data over as it is.
 */
export const arrow = createRequire(import.meta.url)("apache-arrow") as typeof Arrow;
