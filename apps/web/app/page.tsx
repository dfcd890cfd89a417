export default function HomePage() {
  return (
    <main>
      <h1>svc</h1>
      <p>
        Document ingestion and indexing. The REST API lives under <code>/api</code>; its OpenAPI document is at{" "}
        <a href="/api/openapi.json">/api/openapi.json</a>.
      </p>
    </main>
  );
}
