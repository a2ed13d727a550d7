-- initial schema (app connectors)
-- CreateTable
CREATE TABLE "ir_connector" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" VARCHAR(255) NOT NULL,
    "category" VARCHAR(64) NOT NULL,
    "provider_type" VARCHAR(64) NOT NULL,
    "config" JSONB,
    "organization_id" UUID,
    "is_enabled" BOOLEAN NOT NULL DEFAULT false,
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "status" VARCHAR(64) NOT NULL DEFAULT 'draft',
    "status_message" VARCHAR(512),
    "last_tested_at" TIMESTAMPTZ(3),
    "oauth_state_hash" VARCHAR(64),
    "oauth_state_expires_at" TIMESTAMPTZ(3),
    "oauth_state_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "ir_connector_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ir_connector_param" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "connector_id" UUID NOT NULL,
    "key" VARCHAR(255) NOT NULL,
    "value" TEXT,
    "file_id" UUID,
    "value_type" VARCHAR(64) NOT NULL DEFAULT 'text',
    "sequence" INTEGER NOT NULL DEFAULT 10,
    "secret_value" TEXT,

    CONSTRAINT "ir_connector_param_pkey" PRIMARY KEY ("dbid")
);

-- CreateIndex
CREATE UNIQUE INDEX "ir_connector_record_uuid_key" ON "ir_connector"("record_uuid");

-- CreateIndex
CREATE INDEX "ir_connector_organization_id_idx" ON "ir_connector"("organization_id");

-- CreateIndex
CREATE UNIQUE INDEX "ir_connector_param_record_uuid_key" ON "ir_connector_param"("record_uuid");

-- CreateIndex
CREATE INDEX "ir_connector_param_connector_id_idx" ON "ir_connector_param"("connector_id");

-- CreateIndex
CREATE INDEX "ir_connector_param_file_id_idx" ON "ir_connector_param"("file_id");

-- AddForeignKey
ALTER TABLE "ir_connector" ADD CONSTRAINT "ir_connector_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "res_organization"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ir_connector_param" ADD CONSTRAINT "ir_connector_param_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "ir_connector"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;
