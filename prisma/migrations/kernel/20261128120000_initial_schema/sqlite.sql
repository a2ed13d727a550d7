-- initial schema (app kernel)
-- CreateTable
CREATE TABLE "ir_event" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "event_uuid" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "handler" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "source" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "available_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_until" DATETIME,
    "last_error" TEXT,
    "emitted_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" DATETIME
);

-- CreateTable
CREATE TABLE "ir_module" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "seeded_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "ir_event_record_uuid_key" ON "ir_event"("record_uuid");

-- CreateIndex
CREATE INDEX "ir_event_event_uuid_idx" ON "ir_event"("event_uuid");

-- CreateIndex
CREATE INDEX "ir_event_name_idx" ON "ir_event"("name");

-- CreateIndex
CREATE INDEX "ir_event_status_idx" ON "ir_event"("status");

-- CreateIndex
CREATE INDEX "ir_event_available_at_idx" ON "ir_event"("available_at");

-- CreateIndex
CREATE UNIQUE INDEX "ir_module_record_uuid_key" ON "ir_module"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ir_module_name_key" ON "ir_module"("name");
