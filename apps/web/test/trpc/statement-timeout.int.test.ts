// The console's queries run under the web process's statement timeout too: one that fires answers
// tRPC's SERVICE_UNAVAILABLE with the table's code, never an internal error or the driver's text.
import { TRPCError } from "@trpc/server";
import { beforeAll, expect, it } from "vitest";
import { useTestApp } from "../app";
import { createSlowListingPairs, SLOW_LISTING } from "../factories";
import { useConsoleFixture } from "./console";

const app = useTestApp({ SVC_STATEMENT_TIMEOUT_MS: "300" });
const fixture = useConsoleFixture(app);

beforeAll(async () => {
  await createSlowListingPairs(app.db);
}, 60_000);

it("answers a console query that runs past the statement timeout with SERVICE_UNAVAILABLE", async () => {
  const error = await fixture.admin.connectors.indexingStatus({ nameFilter: SLOW_LISTING.name_filter, getAllConnectors: SLOW_LISTING.get_all_connectors }).then(
    () => new Error("expected the listing to time out"),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TRPCError);
  expect(error).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: "The request took too long; narrow it or try again later" });
  // What fits in the timeout still answers.
  expect(await fixture.admin.connectors.indexingStatus({ source: "file" })).toEqual([]);
});
