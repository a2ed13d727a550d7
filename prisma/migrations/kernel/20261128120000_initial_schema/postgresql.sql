-- initial schema (app kernel)
-- CreateTable
CREATE TABLE "ir_event" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "event_uuid" UUID NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "handler" VARCHAR(200) NOT NULL,
    "tenant_id" VARCHAR(100) NOT NULL,
    "payload" JSONB NOT NULL,
    "source" VARCHAR(200),
    "status" VARCHAR(64) NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "available_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_until" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "emitted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "ir_event_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ir_module" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" VARCHAR(100) NOT NULL,
    "version" VARCHAR(32) NOT NULL,
    "seeded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ir_module_pkey" PRIMARY KEY ("dbid")
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
