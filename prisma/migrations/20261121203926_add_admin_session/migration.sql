-- CreateTable
CREATE TABLE "admin_session" (
    "hashed_token" TEXT NOT NULL,
    "api_key_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "revoked_at" TIMESTAMPTZ(6),

    CONSTRAINT "admin_session_pkey" PRIMARY KEY ("hashed_token")
);

-- CreateIndex
CREATE INDEX "admin_session_api_key_id_idx" ON "admin_session"("api_key_id");

-- AddForeignKey
ALTER TABLE "admin_session" ADD CONSTRAINT "admin_session_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_key"("id") ON DELETE CASCADE ON UPDATE CASCADE;
