-- initial schema (app connectors)
-- CreateTable
CREATE TABLE "ir_connector" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "provider_type" TEXT NOT NULL,
    "config" JSONB,
    "organization_id" TEXT,
    "is_enabled" BOOLEAN NOT NULL DEFAULT false,
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL DEFAULT 'draft',
    "status_message" TEXT,
    "last_tested_at" DATETIME,
    "oauth_state_hash" TEXT,
    "oauth_state_expires_at" DATETIME,
    "oauth_state_used_at" DATETIME,
    CONSTRAINT "ir_connector_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "res_organization" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ir_connector_param" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "connector_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT,
    "file_id" TEXT,
    "value_type" TEXT NOT NULL DEFAULT 'text',
    "sequence" INTEGER NOT NULL DEFAULT 10,
    "secret_value" TEXT,
    CONSTRAINT "ir_connector_param_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "ir_connector" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE
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
