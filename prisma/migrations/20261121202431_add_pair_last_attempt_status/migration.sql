-- AlterTable
ALTER TABLE "connector_credential_pair" ADD COLUMN     "last_attempt_status" "IndexingStatus";

-- Hand-written: backfill each pair's column from its latest index attempt (highest id).
UPDATE "connector_credential_pair" p SET "last_attempt_status" = latest.status
FROM (
  SELECT DISTINCT ON (cc_pair_id) cc_pair_id, status FROM "index_attempt" ORDER BY cc_pair_id, id DESC
) latest
WHERE latest.cc_pair_id = p.id;
