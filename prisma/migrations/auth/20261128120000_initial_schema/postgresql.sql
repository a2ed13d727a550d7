-- initial schema (app auth)
-- CreateTable
CREATE TABLE "ir_session" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "user_id" UUID NOT NULL,
    "tenant_id" VARCHAR(100) NOT NULL,
    "family_id" UUID NOT NULL,
    "refresh_token_hash" VARCHAR(64) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked" BOOLEAN NOT NULL DEFAULT false,
    "revoked_reason" VARCHAR(64),
    "revoked_at" TIMESTAMPTZ(3),
    "rotation_key_hash" VARCHAR(64),
    "replaced_by" INTEGER,
    "os" VARCHAR(100),
    "browser" VARCHAR(100),
    "ip" VARCHAR(64),

    CONSTRAINT "ir_session_pkey" PRIMARY KEY ("dbid")
);

-- CreateIndex
CREATE UNIQUE INDEX "ir_session_record_uuid_key" ON "ir_session"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ir_session_refresh_token_hash_key" ON "ir_session"("refresh_token_hash");

-- CreateIndex
CREATE INDEX "ir_session_user_id_idx" ON "ir_session"("user_id");

-- CreateIndex
CREATE INDEX "ir_session_family_id_idx" ON "ir_session"("family_id");
