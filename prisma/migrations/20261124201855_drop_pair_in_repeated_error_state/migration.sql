-- AlterTable
ALTER TABLE "connector_credential_pair" DROP COLUMN "in_repeated_error_state";
