-- The webhook fan-out reads committed events by snapshot (docs/decisions.md "Webhooks"): an event is
-- new when the snapshot it was last fanned out at did not see its transaction. `fanned_snapshot` saw
-- everything fanned out; `target_snapshot`, while set, is being fanned out up to (tx_id, event_id).
ALTER TABLE "webhook_cursor"
  ADD COLUMN "fanned_snapshot" pg_snapshot NOT NULL DEFAULT '3:3:'::pg_snapshot,
  ADD COLUMN "target_snapshot" pg_snapshot;

-- From the position the fan-out reached (every event below transaction T, and T's up to event_id):
-- fanned_snapshot sees the transactions below T, target_snapshot T as well, so the first interval
-- finishes T's events after event_id and nothing is sent twice. (3 is PostgreSQL's first normal xid.)
UPDATE "webhook_cursor" SET
  "fanned_snapshot" = (GREATEST("tx_id"::text::bigint, 3) || ':' || GREATEST("tx_id"::text::bigint, 3) || ':')::pg_snapshot,
  "target_snapshot" = ((GREATEST("tx_id"::text::bigint, 3) + 1) || ':' || (GREATEST("tx_id"::text::bigint, 3) + 1) || ':')::pg_snapshot;
