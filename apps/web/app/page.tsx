export default function HomePage() {
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", margin: "2rem" }}>
      <h1>svc</h1>
      <p>
        Document ingestion and indexing. The REST API lives under <code>/api</code>; its OpenAPI document is at{" "}
        <a href="/api/openapi.json">/api/openapi.json</a>. Admins manage connectors, documents and keys in the{" "}
        <a href="/admin">admin console</a>.
      </p>
    </main>
  );
}
