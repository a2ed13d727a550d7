-- initial schema (app storage)
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
    "folder" UUID,
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

-- CreateTable
CREATE TABLE "storage_folder" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" VARCHAR(200) NOT NULL,
    "parent" UUID,
    "organization" UUID,
    "sequence" INTEGER NOT NULL DEFAULT 10,
    "sibling_key" VARCHAR(64),

    CONSTRAINT "storage_folder_pkey" PRIMARY KEY ("dbid")
);

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
CREATE INDEX "storage_document_folder_idx" ON "storage_document"("folder");

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

-- CreateIndex
CREATE UNIQUE INDEX "storage_folder_record_uuid_key" ON "storage_folder"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "storage_folder_sibling_key_key" ON "storage_folder"("sibling_key");

-- CreateIndex
CREATE INDEX "storage_folder_parent_idx" ON "storage_folder"("parent");

-- CreateIndex
CREATE INDEX "storage_folder_organization_idx" ON "storage_folder"("organization");

-- AddForeignKey
ALTER TABLE "storage_document" ADD CONSTRAINT "storage_document_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "ir_connector"("record_uuid") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storage_document" ADD CONSTRAINT "storage_document_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "res_user"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storage_document" ADD CONSTRAINT "storage_document_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "res_organization"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storage_document" ADD CONSTRAINT "storage_document_folder_fkey" FOREIGN KEY ("folder") REFERENCES "storage_folder"("record_uuid") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storage_document_version" ADD CONSTRAINT "storage_document_version_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "storage_document"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storage_document_version" ADD CONSTRAINT "storage_document_version_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "ir_connector"("record_uuid") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storage_document_version" ADD CONSTRAINT "storage_document_version_uploaded_by_fkey" FOREIGN KEY ("uploaded_by") REFERENCES "res_user"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storage_folder" ADD CONSTRAINT "storage_folder_parent_fkey" FOREIGN KEY ("parent") REFERENCES "storage_folder"("record_uuid") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storage_folder" ADD CONSTRAINT "storage_folder_organization_fkey" FOREIGN KEY ("organization") REFERENCES "res_organization"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;
