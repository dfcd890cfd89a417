import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { contentSecurityPolicy } from "./security-headers";

// GET /api/docs: Scalar's API reference over /api/openapi.json, its "try it" client sending requests
// to this same svc (the document's server is `/api`). Everything the page loads is served from here:
// the standalone bundle of @scalar/api-reference (one file, no chunks), and no fonts, telemetry, AI
// agent, MCP generator or request proxy of Scalar's own services (their options are off below), and a
// Content-Security-Policy that lets the browser load nothing from anywhere else. svc runs offline, so
// the page links nowhere else either: the links Scalar draws with no option to drop them ("Powered by
// Scalar" in the sidebar and in the client's empty response) lose their href and are hidden as they
// appear (Vue keeps the element, so its later renders are unaffected).

// The API root (dispatch-rest-request.ts's API_ROOT, which imports the handlers and so cannot be imported here).
const API_ROOT = "/api";
const SCRIPT_PATH = `${API_ROOT}/docs/scalar.js`;

const CONFIGURATION = {
  url: `${API_ROOT}/openapi.json`,
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
  persistAuth: false,
  // The console's icon (app/icon.svg, which Next serves at this path).
  favicon: "/icon.svg",
  authentication: { preferredSecurityScheme: "BearerAuth" },
};

// Every page's policy (its one inline script mounts the reference; Scalar styles its components
// inline), and Scalar's web workers, which it starts from blobs.
const CONTENT_SECURITY_POLICY = contentSecurityPolicy(["worker-src 'self' blob:"]);

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>svc API reference</title>
  </head>
  <body>
    <!-- Not id="api-reference": the bundle mounts a second reference, with its defaults, on that id. -->
    <div id="svc-api-reference"></div>
    <script src="${SCRIPT_PATH}"></script>
    <script>
      Scalar.createApiReference("#svc-api-reference", ${JSON.stringify(CONFIGURATION)});
      const unlink = (root) => {
        const links = root.matches("a[href]") ? [root] : root.querySelectorAll("a[href]");
        for (const link of links) {
          if (link.origin !== location.origin && /^https?:$/.test(link.protocol)) {
            link.removeAttribute("href");
            link.hidden = true;
          }
        }
      };
      // Only what was added is looked at: the reference renders thousands of nodes.
      new MutationObserver((changes) => {
        for (const change of changes) for (const node of change.addedNodes) if (node.nodeType === 1) unlink(node);
      }).observe(document.body, { childList: true, subtree: true });
      unlink(document.body);
    </script>
  </body>
</html>
`;

export function apiReferencePage(): Response {
  return new Response(PAGE, {
    headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": CONTENT_SECURITY_POLICY, "cache-control": "no-cache" },
  });
}

let script: Promise<Buffer> | undefined;

/** Scalar's standalone bundle (~4 MB), read from the installed package once. */
export async function apiReferenceScript(): Promise<Response> {
  script ??= readFile(standaloneBundlePath()).catch((error: unknown) => {
    script = undefined;
    throw error;
  });
  return new Response(new Uint8Array(await script), {
    headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" },
  });
}

/** The package exports only its modules; the browser bundle sits beside its entry point. */
function standaloneBundlePath(): string {
  const entry = createRequire(import.meta.url).resolve("@scalar/api-reference");
  return path.join(path.dirname(entry), "browser", "standalone.js");
}
