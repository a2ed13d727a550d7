-- initial schema (app qa)
-- CreateTable
CREATE TABLE "qa_recording" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" VARCHAR(200) NOT NULL,
    "usecase_key" VARCHAR(100) NOT NULL,
    "module" VARCHAR(100) NOT NULL,
    "start_path" VARCHAR(500) NOT NULL DEFAULT '/',
    "status" VARCHAR(64) NOT NULL DEFAULT 'live',
    "started_by" UUID,
    "finalised_at" TIMESTAMPTZ(3),
    "promoted_usecase_id" UUID,

    CONSTRAINT "qa_recording_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "qa_recording_step" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "recording_id" UUID NOT NULL,
    "sequence" INTEGER NOT NULL,
    "kind" VARCHAR(64) NOT NULL,
    "target" JSONB,
    "value" JSONB,
    "assertion" JSONB,
    "timeout_ms" INTEGER,
    "screenshot" VARCHAR(64) NOT NULL DEFAULT 'always',
    "caption" VARCHAR(500),
    "url" VARCHAR(1000),

    CONSTRAINT "qa_recording_step_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "qa_run" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "sandbox_tenant" VARCHAR(100) NOT NULL,
    "browser" VARCHAR(32) NOT NULL DEFAULT 'chromium',
    "headless" BOOLEAN NOT NULL DEFAULT true,
    "status" VARCHAR(64) NOT NULL DEFAULT 'running',
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "duration_ms" INTEGER,
    "usecase_count" INTEGER NOT NULL DEFAULT 0,
    "passed_count" INTEGER NOT NULL DEFAULT 0,
    "failed_count" INTEGER NOT NULL DEFAULT 0,
    "trace_path" VARCHAR(1000),
    "error" TEXT,

    CONSTRAINT "qa_run_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "qa_run_result" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "run_id" UUID NOT NULL,
    "usecase_id" UUID,
    "usecase_key" VARCHAR(100) NOT NULL,
    "usecase_version" INTEGER,
    "module" VARCHAR(100) NOT NULL,
    "status" VARCHAR(64) NOT NULL,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "duration_ms" INTEGER,
    "failed_step" INTEGER,
    "error" TEXT,

    CONSTRAINT "qa_run_result_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "qa_run_step" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "result_id" UUID NOT NULL,
    "sequence" INTEGER NOT NULL,
    "kind" VARCHAR(32) NOT NULL,
    "caption" VARCHAR(500),
    "status" VARCHAR(64) NOT NULL,
    "started_at" TIMESTAMPTZ(3),
    "action_ms" DOUBLE PRECISION,
    "matched_locator" JSONB,
    "tried_locators" JSONB,
    "attempts" INTEGER NOT NULL DEFAULT 1,
    "error" TEXT,
    "screenshot_path" VARCHAR(1000),

    CONSTRAINT "qa_run_step_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "qa_usecase" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "key" VARCHAR(100) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "module" VARCHAR(100) NOT NULL,
    "start_path" VARCHAR(500) NOT NULL DEFAULT '/',
    "source" VARCHAR(64) NOT NULL,
    "recording_id" UUID,
    "version" INTEGER NOT NULL DEFAULT 1,
    "replay_role" VARCHAR(64) NOT NULL DEFAULT 'admin',
    "variables" JSONB,
    "is_active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "qa_usecase_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "qa_usecase_step" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "usecase_id" UUID NOT NULL,
    "sequence" INTEGER NOT NULL,
    "kind" VARCHAR(64) NOT NULL,
    "target" JSONB,
    "value" JSONB,
    "assertion" JSONB,
    "timeout_ms" INTEGER,
    "screenshot" VARCHAR(64) NOT NULL DEFAULT 'always',
    "caption" VARCHAR(500),
    "url" VARCHAR(1000),

    CONSTRAINT "qa_usecase_step_pkey" PRIMARY KEY ("dbid")
);

-- CreateIndex
CREATE UNIQUE INDEX "qa_recording_record_uuid_key" ON "qa_recording"("record_uuid");

-- CreateIndex
CREATE INDEX "qa_recording_promoted_usecase_id_idx" ON "qa_recording"("promoted_usecase_id");

-- CreateIndex
CREATE UNIQUE INDEX "qa_recording_step_record_uuid_key" ON "qa_recording_step"("record_uuid");

-- CreateIndex
CREATE INDEX "qa_recording_step_recording_id_idx" ON "qa_recording_step"("recording_id");

-- CreateIndex
CREATE UNIQUE INDEX "qa_run_record_uuid_key" ON "qa_run"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "qa_run_result_record_uuid_key" ON "qa_run_result"("record_uuid");

-- CreateIndex
CREATE INDEX "qa_run_result_run_id_idx" ON "qa_run_result"("run_id");

-- CreateIndex
CREATE INDEX "qa_run_result_usecase_id_idx" ON "qa_run_result"("usecase_id");

-- CreateIndex
CREATE INDEX "qa_run_result_usecase_key_idx" ON "qa_run_result"("usecase_key");

-- CreateIndex
CREATE INDEX "qa_run_result_module_idx" ON "qa_run_result"("module");

-- CreateIndex
CREATE INDEX "qa_run_result_finished_at_idx" ON "qa_run_result"("finished_at");

-- CreateIndex
CREATE UNIQUE INDEX "qa_run_step_record_uuid_key" ON "qa_run_step"("record_uuid");

-- CreateIndex
CREATE INDEX "qa_run_step_result_id_idx" ON "qa_run_step"("result_id");

-- CreateIndex
CREATE UNIQUE INDEX "qa_usecase_record_uuid_key" ON "qa_usecase"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "qa_usecase_key_key" ON "qa_usecase"("key");

-- CreateIndex
CREATE UNIQUE INDEX "qa_usecase_step_record_uuid_key" ON "qa_usecase_step"("record_uuid");

-- CreateIndex
CREATE INDEX "qa_usecase_step_usecase_id_idx" ON "qa_usecase_step"("usecase_id");

-- AddForeignKey
ALTER TABLE "qa_recording" ADD CONSTRAINT "qa_recording_promoted_usecase_id_fkey" FOREIGN KEY ("promoted_usecase_id") REFERENCES "qa_usecase"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "qa_recording_step" ADD CONSTRAINT "qa_recording_step_recording_id_fkey" FOREIGN KEY ("recording_id") REFERENCES "qa_recording"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "qa_run_result" ADD CONSTRAINT "qa_run_result_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "qa_run"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "qa_run_result" ADD CONSTRAINT "qa_run_result_usecase_id_fkey" FOREIGN KEY ("usecase_id") REFERENCES "qa_usecase"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "qa_run_step" ADD CONSTRAINT "qa_run_step_result_id_fkey" FOREIGN KEY ("result_id") REFERENCES "qa_run_result"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "qa_usecase_step" ADD CONSTRAINT "qa_usecase_step_usecase_id_fkey" FOREIGN KEY ("usecase_id") REFERENCES "qa_usecase"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;
