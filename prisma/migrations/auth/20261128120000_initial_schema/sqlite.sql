-- initial schema (app auth)
-- CreateTable
CREATE TABLE "ir_session" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "user_id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "family_id" TEXT NOT NULL,
    "refresh_token_hash" TEXT NOT NULL,
    "expires_at" DATETIME NOT NULL,
    "revoked" BOOLEAN NOT NULL DEFAULT false,
    "revoked_reason" TEXT,
    "revoked_at" DATETIME,
    "rotation_key_hash" TEXT,
    "replaced_by" INTEGER,
    "os" TEXT,
    "browser" TEXT,
    "ip" TEXT
);

-- CreateIndex
CREATE UNIQUE INDEX "ir_session_record_uuid_key" ON "ir_session"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ir_session_refresh_token_hash_key" ON "ir_session"("refresh_token_hash");

-- CreateIndex
CREATE INDEX "ir_session_user_id_idx" ON "ir_session"("user_id");

-- CreateIndex
CREATE INDEX "ir_session_family_id_idx" ON "ir_session"("family_id");
