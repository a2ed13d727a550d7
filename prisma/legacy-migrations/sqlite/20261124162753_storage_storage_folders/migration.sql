-- storage folders (app storage)
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

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_storage_document" (
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
INSERT INTO "new_storage_document" ("checksum", "connector_id", "content_type", "created_at_utc", "current_version", "dbid", "description", "file_size", "is_active", "name", "organization_id", "original_filename", "owner_id", "owner_model", "owner_record_uuid", "record_uuid", "revision", "storage_backend", "storage_key", "storage_object_id", "tags", "updated_at_utc", "version_count") SELECT "checksum", "connector_id", "content_type", "created_at_utc", "current_version", "dbid", "description", "file_size", "is_active", "name", "organization_id", "original_filename", "owner_id", "owner_model", "owner_record_uuid", "record_uuid", "revision", "storage_backend", "storage_key", "storage_object_id", "tags", "updated_at_utc", "version_count" FROM "storage_document";
DROP TABLE "storage_document";
ALTER TABLE "new_storage_document" RENAME TO "storage_document";
CREATE UNIQUE INDEX "storage_document_record_uuid_key" ON "storage_document"("record_uuid");
CREATE INDEX "storage_document_connector_id_idx" ON "storage_document"("connector_id");
CREATE INDEX "storage_document_owner_id_idx" ON "storage_document"("owner_id");
CREATE INDEX "storage_document_organization_id_idx" ON "storage_document"("organization_id");
CREATE INDEX "storage_document_owner_record_uuid_idx" ON "storage_document"("owner_record_uuid");
CREATE INDEX "storage_document_folder_idx" ON "storage_document"("folder");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "storage_folder_record_uuid_key" ON "storage_folder"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "storage_folder_sibling_key_key" ON "storage_folder"("sibling_key");

-- CreateIndex
CREATE INDEX "storage_folder_parent_idx" ON "storage_folder"("parent");

-- CreateIndex
CREATE INDEX "storage_folder_organization_idx" ON "storage_folder"("organization");
