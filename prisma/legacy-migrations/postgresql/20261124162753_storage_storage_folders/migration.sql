-- storage folders (app storage)
-- AlterTable
ALTER TABLE "storage_document" ADD COLUMN     "folder" UUID;

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
CREATE UNIQUE INDEX "storage_folder_record_uuid_key" ON "storage_folder"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "storage_folder_sibling_key_key" ON "storage_folder"("sibling_key");

-- CreateIndex
CREATE INDEX "storage_folder_parent_idx" ON "storage_folder"("parent");

-- CreateIndex
CREATE INDEX "storage_folder_organization_idx" ON "storage_folder"("organization");

-- CreateIndex
CREATE INDEX "storage_document_folder_idx" ON "storage_document"("folder");

-- AddForeignKey
ALTER TABLE "storage_document" ADD CONSTRAINT "storage_document_folder_fkey" FOREIGN KEY ("folder") REFERENCES "storage_folder"("record_uuid") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storage_folder" ADD CONSTRAINT "storage_folder_parent_fkey" FOREIGN KEY ("parent") REFERENCES "storage_folder"("record_uuid") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storage_folder" ADD CONSTRAINT "storage_folder_organization_fkey" FOREIGN KEY ("organization") REFERENCES "res_organization"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;
