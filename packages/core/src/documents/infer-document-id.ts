/** Bytes that stay literal in an inferred id; everything else is percent-encoded. */
const UNRESERVED = /[A-Za-z0-9_.\-~]/;

/**
 * The id the service gives a document sent without one: `ingestion_api_` + the semantic identifier
 * with spaces turned into `_`, percent-encoded (upper-case hex of the UTF-8 bytes). The same rule as
 * the original service, so clients that relied on its ids keep finding their documents.
 */
export function inferDocumentId(semanticIdentifier: string): string {
  let encoded = "";
  for (const character of semanticIdentifier.replaceAll(" ", "_")) {
    if (UNRESERVED.test(character)) {
      encoded += character;
      continue;
    }
    for (const byte of Buffer.from(character, "utf8")) {
      encoded += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    }
  }
  return `ingestion_api_${encoded}`;
}
