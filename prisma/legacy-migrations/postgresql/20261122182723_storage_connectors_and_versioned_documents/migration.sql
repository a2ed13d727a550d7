-- connectors and versioned documents (app storage)
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

-- CreateTable
CREATE TABLE "storage_document" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" VARCHAR(255) NOT NULL,
    "original_filename" VARCHAR(255) NOT NULL,
    "content_type" VARCHAR(120),
    "file_size" INTEGER,
    "checksum" VARCHAR(64),
    "storage_backend" VARCHAR(64) NOT NULL DEFAULT 'local',
    "connector_id" UUID,
    "storage_key" VARCHAR(1024),
    "storage_object_id" VARCHAR(1024),
    "owner_id" UUID,
    "organization_id" UUID,
    "owner_model" VARCHAR(100),
    "owner_record_uuid" UUID,
    "description" TEXT,
    "tags" VARCHAR(512),
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "version_count" INTEGER NOT NULL DEFAULT 1,
    "current_version" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "storage_document_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "storage_document_version" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "document_id" UUID NOT NULL,
    "version_number" INTEGER NOT NULL,
    "original_filename" VARCHAR(255) NOT NULL,
    "content_type" VARCHAR(120),
    "file_size" INTEGER,
    "checksum" VARCHAR(64),
    "storage_backend" VARCHAR(64) NOT NULL DEFAULT 'local',
    "connector_id" UUID,
    "storage_key" VARCHAR(1024) NOT NULL,
    "storage_object_id" VARCHAR(1024),
    "change_note" VARCHAR(512),
    "uploaded_by" UUID,

    CONSTRAINT "storage_document_version_pkey" PRIMARY KEY ("dbid")
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

-- CreateIndex
CREATE UNIQUE INDEX "storage_document_record_uuid_key" ON "storage_document"("record_uuid");

-- CreateIndex
CREATE INDEX "storage_document_connector_id_idx" ON "storage_document"("connector_id");

-- CreateIndex
CREATE INDEX "storage_document_owner_id_idx" ON "storage_document"("owner_id");

-- CreateIndex
CREATE INDEX "storage_document_organization_id_idx" ON "storage_document"("organization_id");

-- CreateIndex
CREATE INDEX "storage_document_owner_record_uuid_idx" ON "storage_document"("owner_record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "storage_document_version_record_uuid_key" ON "storage_document_version"("record_uuid");

-- CreateIndex
CREATE INDEX "storage_document_version_document_id_idx" ON "storage_document_version"("document_id");

-- CreateIndex
CREATE INDEX "storage_document_version_connector_id_idx" ON "storage_document_version"("connector_id");

-- CreateIndex
CREATE INDEX "storage_document_version_uploaded_by_idx" ON "storage_document_version"("uploaded_by");

-- CreateIndex
CREATE UNIQUE INDEX "storage_document_version_document_id_version_number_key" ON "storage_document_version"("document_id", "version_number");

-- AddForeignKey
ALTER TABLE "ir_connector" ADD CONSTRAINT "ir_connector_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "res_organization"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ir_connector_param" ADD CONSTRAINT "ir_connector_param_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "ir_connector"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ir_connector_param" ADD CONSTRAINT "ir_connector_param_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "storage_document"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storage_document" ADD CONSTRAINT "storage_document_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "ir_connector"("record_uuid") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storage_document" ADD CONSTRAINT "storage_document_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "res_user"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storage_document" ADD CONSTRAINT "storage_document_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "res_organization"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storage_document_version" ADD CONSTRAINT "storage_document_version_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "storage_document"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storage_document_version" ADD CONSTRAINT "storage_document_version_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "ir_connector"("record_uuid") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storage_document_version" ADD CONSTRAINT "storage_document_version_uploaded_by_fkey" FOREIGN KEY ("uploaded_by") REFERENCES "res_user"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;
