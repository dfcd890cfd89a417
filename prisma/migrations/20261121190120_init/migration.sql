-- CreateEnum
CREATE TYPE "DocumentSource" AS ENUM ('ingestion_api', 'slack', 'web', 'google_drive', 'gmail', 'requesttracker', 'github', 'gitbook', 'gitlab', 'guru', 'bookstack', 'outline', 'confluence', 'jira', 'slab', 'productboard', 'file', 'coda', 'notion', 'zulip', 'linear', 'hubspot', 'document360', 'gong', 'google_sites', 'zendesk', 'loopio', 'dropbox', 'sharepoint', 'teams', 'salesforce', 'discourse', 'axero', 'clickup', 'mediawiki', 'wikipedia', 'asana', 's3', 'r2', 'google_cloud_storage', 'oci_storage', 'xenforo', 'not_applicable', 'discord', 'freshdesk', 'fireflies', 'egnyte', 'airtable', 'highspot', 'drupal_wiki', 'imap', 'bitbucket', 'testrail', 'mock_connector', 'user_file');

-- CreateEnum
CREATE TYPE "AccessType" AS ENUM ('public', 'private', 'sync');

-- CreateEnum
CREATE TYPE "ConnectorCredentialPairStatus" AS ENUM ('SCHEDULED', 'INITIAL_INDEXING', 'ACTIVE', 'PAUSED', 'DELETING', 'INVALID');

-- CreateEnum
CREATE TYPE "IndexingStatus" AS ENUM ('not_started', 'in_progress', 'success', 'canceled', 'failed', 'completed_with_errors');

-- CreateEnum
CREATE TYPE "DocumentIndexingStatus" AS ENUM ('queued', 'indexing', 'indexed', 'failed');

-- CreateEnum
CREATE TYPE "SectionKind" AS ENUM ('text', 'image');

-- CreateEnum
CREATE TYPE "ApiKeyRole" AS ENUM ('admin', 'curator', 'basic', 'limited');

-- CreateTable
CREATE TABLE "connector" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "source" "DocumentSource" NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "connector_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credential" (
    "id" SERIAL NOT NULL,
    "name" TEXT,
    "source" "DocumentSource" NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credential_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "connector_credential_pair" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "connector_id" INTEGER NOT NULL,
    "credential_id" INTEGER NOT NULL,
    "access_type" "AccessType" NOT NULL,
    "status" "ConnectorCredentialPairStatus" NOT NULL DEFAULT 'SCHEDULED',
    "in_repeated_error_state" BOOLEAN NOT NULL DEFAULT false,
    "docs_indexed" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "connector_credential_pair_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "federated_connector" (
    "id" SERIAL NOT NULL,
    "source" TEXT NOT NULL,
    "name" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "federated_connector_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "document" (
    "id" TEXT NOT NULL,
    "semantic_identifier" TEXT NOT NULL,
    "title" TEXT,
    "source" "DocumentSource" NOT NULL,
    "link" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "doc_updated_at" TIMESTAMPTZ(6) NOT NULL,
    "primary_owners" JSONB,
    "secondary_owners" JSONB,
    "from_ingestion_api" BOOLEAN NOT NULL DEFAULT false,
    "additional_info" JSONB,
    "doc_metadata" JSONB,
    "external_user_emails" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "external_user_group_ids" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "is_public" BOOLEAN,
    "version" INTEGER NOT NULL DEFAULT 1,
    "indexing_status" "DocumentIndexingStatus" NOT NULL DEFAULT 'queued',
    "indexed_version" INTEGER,
    "indexed_at" TIMESTAMPTZ(6),
    "chunk_count" INTEGER,
    "last_error" TEXT,
    "index_attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "document_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "document_section" (
    "document_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "kind" "SectionKind" NOT NULL,
    "text" TEXT,
    "link" TEXT,
    "image_file_id" TEXT,

    CONSTRAINT "document_section_pkey" PRIMARY KEY ("document_id","position")
);

-- CreateTable
CREATE TABLE "document_by_cc_pair" (
    "document_id" TEXT NOT NULL,
    "cc_pair_id" INTEGER NOT NULL,
    "has_been_indexed" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "document_by_cc_pair_pkey" PRIMARY KEY ("document_id","cc_pair_id")
);

-- CreateTable
CREATE TABLE "document_chunk" (
    "document_id" TEXT NOT NULL,
    "chunk_index" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "title_prefix" TEXT NOT NULL,
    "metadata_suffix" TEXT NOT NULL DEFAULT '',
    "image_file_id" TEXT,
    "link" TEXT,
    "token_count" INTEGER NOT NULL,
    "search_vector" tsvector,

    CONSTRAINT "document_chunk_pkey" PRIMARY KEY ("document_id","chunk_index")
);

-- CreateTable
CREATE TABLE "index_attempt" (
    "id" SERIAL NOT NULL,
    "cc_pair_id" INTEGER NOT NULL,
    "status" "IndexingStatus" NOT NULL DEFAULT 'not_started',
    "docs_indexed" INTEGER NOT NULL DEFAULT 0,
    "docs_failed" INTEGER NOT NULL DEFAULT 0,
    "error_message" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(6),
    "finished_at" TIMESTAMPTZ(6),

    CONSTRAINT "index_attempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "uploaded_file" (
    "id" SERIAL NOT NULL,
    "file_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "file_type" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "uploaded_file_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_key" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "role" "ApiKeyRole" NOT NULL,
    "hashed_key" TEXT NOT NULL,
    "display_prefix" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(6),
    "revoked_at" TIMESTAMPTZ(6),

    CONSTRAINT "api_key_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_key_scope" (
    "api_key_id" INTEGER NOT NULL,
    "cc_pair_id" INTEGER NOT NULL,

    CONSTRAINT "api_key_scope_pkey" PRIMARY KEY ("api_key_id","cc_pair_id")
);

-- CreateIndex
CREATE INDEX "connector_credential_pair_status_idx" ON "connector_credential_pair"("status");

-- CreateIndex
CREATE UNIQUE INDEX "connector_credential_pair_connector_id_credential_id_key" ON "connector_credential_pair"("connector_id", "credential_id");

-- CreateIndex
CREATE INDEX "document_from_ingestion_api_id_idx" ON "document"("from_ingestion_api", "id");

-- CreateIndex
CREATE INDEX "document_indexing_status_idx" ON "document"("indexing_status");

-- CreateIndex
CREATE INDEX "document_section_image_file_id_idx" ON "document_section"("image_file_id");

-- CreateIndex
CREATE INDEX "document_by_cc_pair_cc_pair_id_document_id_idx" ON "document_by_cc_pair"("cc_pair_id", "document_id");

-- CreateIndex
CREATE INDEX "index_attempt_cc_pair_id_id_idx" ON "index_attempt"("cc_pair_id", "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "uploaded_file_file_id_key" ON "uploaded_file"("file_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_key_hashed_key_key" ON "api_key"("hashed_key");

-- AddForeignKey
ALTER TABLE "connector_credential_pair" ADD CONSTRAINT "connector_credential_pair_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "connector"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "connector_credential_pair" ADD CONSTRAINT "connector_credential_pair_credential_id_fkey" FOREIGN KEY ("credential_id") REFERENCES "credential"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_section" ADD CONSTRAINT "document_section_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "document"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_section" ADD CONSTRAINT "document_section_image_file_id_fkey" FOREIGN KEY ("image_file_id") REFERENCES "uploaded_file"("file_id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_by_cc_pair" ADD CONSTRAINT "document_by_cc_pair_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "document"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_by_cc_pair" ADD CONSTRAINT "document_by_cc_pair_cc_pair_id_fkey" FOREIGN KEY ("cc_pair_id") REFERENCES "connector_credential_pair"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_chunk" ADD CONSTRAINT "document_chunk_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "document"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "index_attempt" ADD CONSTRAINT "index_attempt_cc_pair_id_fkey" FOREIGN KEY ("cc_pair_id") REFERENCES "connector_credential_pair"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_key_scope" ADD CONSTRAINT "api_key_scope_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_key"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_key_scope" ADD CONSTRAINT "api_key_scope_cc_pair_id_fkey" FOREIGN KEY ("cc_pair_id") REFERENCES "connector_credential_pair"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Written by hand, not generated from schema.prisma --------------------------------------------

-- Full-text search over chunks. search_vector is an Unsupported("tsvector") column, which the
-- generated SQL leaves alone. schema.prisma declares the index too, so that diffs keep it.
CREATE INDEX "document_chunk_search_vector_idx" ON "document_chunk" USING GIN ("search_vector");

-- The built-in default pair (connector, credential and pair with id 1): documents ingested without
-- a cc_pair_id attach to it.
INSERT INTO "connector" ("id", "name", "source", "updated_at")
VALUES (1, 'DefaultConnector', 'ingestion_api', CURRENT_TIMESTAMP);

INSERT INTO "credential" ("id", "source")
VALUES (1, 'ingestion_api');

INSERT INTO "connector_credential_pair" ("id", "name", "connector_id", "credential_id", "access_type", "status", "updated_at")
VALUES (1, 'DefaultCCPair', 1, 1, 'public', 'ACTIVE', CURRENT_TIMESTAMP);

-- The rows above took id 1 without their sequences, so move each sequence on: the next id is 2.
SELECT setval(pg_get_serial_sequence('"connector"', 'id'), 1);
SELECT setval(pg_get_serial_sequence('"credential"', 'id'), 1);
SELECT setval(pg_get_serial_sequence('"connector_credential_pair"', 'id'), 1);
