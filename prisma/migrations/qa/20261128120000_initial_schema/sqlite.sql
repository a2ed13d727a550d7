-- initial schema (app qa)
-- CreateTable
CREATE TABLE "qa_recording" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" TEXT NOT NULL,
    "usecase_key" TEXT NOT NULL,
    "module" TEXT NOT NULL,
    "start_path" TEXT NOT NULL DEFAULT '/',
    "status" TEXT NOT NULL DEFAULT 'live',
    "started_by" TEXT,
    "finalised_at" DATETIME,
    "promoted_usecase_id" TEXT,
    CONSTRAINT "qa_recording_promoted_usecase_id_fkey" FOREIGN KEY ("promoted_usecase_id") REFERENCES "qa_usecase" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "qa_recording_step" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "recording_id" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "target" JSONB,
    "value" JSONB,
    "assertion" JSONB,
    "timeout_ms" INTEGER,
    "screenshot" TEXT NOT NULL DEFAULT 'always',
    "caption" TEXT,
    "url" TEXT,
    CONSTRAINT "qa_recording_step_recording_id_fkey" FOREIGN KEY ("recording_id") REFERENCES "qa_recording" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "qa_run" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "sandbox_tenant" TEXT NOT NULL,
    "browser" TEXT NOT NULL DEFAULT 'chromium',
    "headless" BOOLEAN NOT NULL DEFAULT true,
    "status" TEXT NOT NULL DEFAULT 'running',
    "started_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" DATETIME,
    "duration_ms" INTEGER,
    "usecase_count" INTEGER NOT NULL DEFAULT 0,
    "passed_count" INTEGER NOT NULL DEFAULT 0,
    "failed_count" INTEGER NOT NULL DEFAULT 0,
    "trace_path" TEXT,
    "error" TEXT
);

-- CreateTable
CREATE TABLE "qa_run_result" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "run_id" TEXT NOT NULL,
    "usecase_id" TEXT,
    "usecase_key" TEXT NOT NULL,
    "usecase_version" INTEGER,
    "module" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "started_at" DATETIME,
    "finished_at" DATETIME,
    "duration_ms" INTEGER,
    "failed_step" INTEGER,
    "error" TEXT,
    CONSTRAINT "qa_run_result_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "qa_run" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "qa_run_result_usecase_id_fkey" FOREIGN KEY ("usecase_id") REFERENCES "qa_usecase" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "qa_run_step" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "result_id" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "caption" TEXT,
    "status" TEXT NOT NULL,
    "started_at" DATETIME,
    "action_ms" REAL,
    "matched_locator" JSONB,
    "tried_locators" JSONB,
    "attempts" INTEGER NOT NULL DEFAULT 1,
    "error" TEXT,
    "screenshot_path" TEXT,
    CONSTRAINT "qa_run_step_result_id_fkey" FOREIGN KEY ("result_id") REFERENCES "qa_run_result" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "qa_usecase" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "module" TEXT NOT NULL,
    "start_path" TEXT NOT NULL DEFAULT '/',
    "source" TEXT NOT NULL,
    "recording_id" TEXT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "replay_role" TEXT NOT NULL DEFAULT 'admin',
    "variables" JSONB,
    "is_active" BOOLEAN NOT NULL DEFAULT true
);

-- CreateTable
CREATE TABLE "qa_usecase_step" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "usecase_id" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "target" JSONB,
    "value" JSONB,
    "assertion" JSONB,
    "timeout_ms" INTEGER,
    "screenshot" TEXT NOT NULL DEFAULT 'always',
    "caption" TEXT,
    "url" TEXT,
    CONSTRAINT "qa_usecase_step_usecase_id_fkey" FOREIGN KEY ("usecase_id") REFERENCES "qa_usecase" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE
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
