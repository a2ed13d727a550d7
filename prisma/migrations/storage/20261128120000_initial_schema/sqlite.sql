-- initial schema (app storage)
-- CreateTable
CREATE TABLE "storage_document" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" TEXT NOT NULL,
    "original_filename" TEXT NOT NULL,
    "content_type" TEXT,
    "file_size" INTEGER,
    "checksum" TEXT,
    "storage_backend" TEXT NOT NULL DEFAULT 'local',
    "connector_id" TEXT,
    "storage_key" TEXT,
    "storage_object_id" TEXT,
    "owner_id" TEXT,
    "organization_id" TEXT,
    "owner_model" TEXT,
    "owner_record_uuid" TEXT,
    "description" TEXT,
    "tags" TEXT,
    "folder" TEXT,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "version_count" INTEGER NOT NULL DEFAULT 1,
    "current_version" INTEGER NOT NULL DEFAULT 1,
    CONSTRAINT "storage_document_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "ir_connector" ("record_uuid") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "storage_document_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "res_user" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "storage_document_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "res_organization" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "storage_document_folder_fkey" FOREIGN KEY ("folder") REFERENCES "storage_folder" ("record_uuid") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "storage_document_version" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "document_id" TEXT NOT NULL,
    "version_number" INTEGER NOT NULL,
    "original_filename" TEXT NOT NULL,
    "content_type" TEXT,
    "file_size" INTEGER,
    "checksum" TEXT,
    "storage_backend" TEXT NOT NULL DEFAULT 'local',
    "connector_id" TEXT,
    "storage_key" TEXT NOT NULL,
    "storage_object_id" TEXT,
    "change_note" TEXT,
    "uploaded_by" TEXT,
    CONSTRAINT "storage_document_version_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "storage_document" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "storage_document_version_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "ir_connector" ("record_uuid") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "storage_document_version_uploaded_by_fkey" FOREIGN KEY ("uploaded_by") REFERENCES "res_user" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "storage_folder" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" TEXT NOT NULL,
    "parent" TEXT,
    "organization" TEXT,
    "sequence" INTEGER NOT NULL DEFAULT 10,
    "sibling_key" TEXT,
    CONSTRAINT "storage_folder_parent_fkey" FOREIGN KEY ("parent") REFERENCES "storage_folder" ("record_uuid") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "storage_folder_organization_fkey" FOREIGN KEY ("organization") REFERENCES "res_organization" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE
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
