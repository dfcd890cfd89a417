// canViewEvent (docs/decisions.md "Events"): the stream's events by the one rule, for each kind of event.
import { describe, expect, it } from "vitest";
import { canViewEvent, type AccessSubject, type EventAccess } from "./access-policy";

const unscopedAdmin: AccessSubject = { role: "admin", scopeCcPairIds: null };
const unscopedCurator: AccessSubject = { role: "curator", scopeCcPairIds: null };
const scoped: AccessSubject = { role: "admin", scopeCcPairIds: [1] };

const own = { ccPairId: 1, accessType: "private" };
const otherPrivate = { ccPairId: 2, accessType: "private" };
const otherPublic = { ccPairId: 3, accessType: "public" };
const present = (isPublic: boolean | null, links = [otherPrivate]) => ({ isPublic, externalUserEmails: [], externalUserGroupIds: [], links });
const documentEvent = (pairs: EventAccess["pairs"], document: EventAccess["document"]): EventAccess => ({ documentId: "d", pairs, document });

describe("canViewEvent", () => {
  it("shows a document's event to whom may see the document now, as GET does", () => {
    expect(canViewEvent(scoped, documentEvent([otherPrivate], present(null)))).toBe(false);
    expect(canViewEvent(scoped, documentEvent([otherPrivate], present(true)))).toBe(true);
    expect(canViewEvent(scoped, documentEvent([otherPublic], present(null, [otherPublic])))).toBe(true);
    expect(canViewEvent(scoped, documentEvent([otherPublic], present(false, [otherPublic])))).toBe(false);
    // Linked to the key's pair since the event: the document is the key's now.
    expect(canViewEvent(scoped, documentEvent([otherPrivate], present(null, [otherPrivate, own])))).toBe(true);
    expect(canViewEvent(unscopedCurator, documentEvent([otherPrivate], present(false)))).toBe(true);
  });

  it("shows a document that no longer exists only through the key's own pairs: its external access went with it", () => {
    expect(canViewEvent(scoped, documentEvent([own, otherPrivate], null))).toBe(true);
    expect(canViewEvent(scoped, documentEvent([otherPublic], null))).toBe(false);
    expect(canViewEvent(scoped, documentEvent([], null))).toBe(false);
    expect(canViewEvent(unscopedCurator, documentEvent([otherPrivate], null))).toBe(true);
  });

  it("shows an attempt by its pair, and a rebuild only to an admin without scope", () => {
    const attempt = (pair: EventAccess["pairs"][number]): EventAccess => ({ documentId: null, pairs: [pair], document: null });
    expect([own, otherPrivate, otherPublic].map((pair) => canViewEvent(scoped, attempt(pair)))).toEqual([true, false, true]);
    const rebuild: EventAccess = { documentId: null, pairs: [], document: null };
    expect([unscopedAdmin, unscopedCurator, scoped].map((subject) => canViewEvent(subject, rebuild))).toEqual([true, false, false]);
  });
});
