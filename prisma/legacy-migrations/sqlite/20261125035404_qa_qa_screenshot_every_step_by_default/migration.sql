-- qa screenshot every step by default (app qa)
-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_qa_recording_step" (
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
INSERT INTO "new_qa_recording_step" ("assertion", "caption", "created_at_utc", "dbid", "kind", "record_uuid", "recording_id", "revision", "screenshot", "sequence", "target", "timeout_ms", "updated_at_utc", "url", "value") SELECT "assertion", "caption", "created_at_utc", "dbid", "kind", "record_uuid", "recording_id", "revision", "screenshot", "sequence", "target", "timeout_ms", "updated_at_utc", "url", "value" FROM "qa_recording_step";
DROP TABLE "qa_recording_step";
ALTER TABLE "new_qa_recording_step" RENAME TO "qa_recording_step";
CREATE UNIQUE INDEX "qa_recording_step_record_uuid_key" ON "qa_recording_step"("record_uuid");
CREATE INDEX "qa_recording_step_recording_id_idx" ON "qa_recording_step"("recording_id");
CREATE TABLE "new_qa_usecase_step" (
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
INSERT INTO "new_qa_usecase_step" ("assertion", "caption", "created_at_utc", "dbid", "kind", "record_uuid", "revision", "screenshot", "sequence", "target", "timeout_ms", "updated_at_utc", "url", "usecase_id", "value") SELECT "assertion", "caption", "created_at_utc", "dbid", "kind", "record_uuid", "revision", "screenshot", "sequence", "target", "timeout_ms", "updated_at_utc", "url", "usecase_id", "value" FROM "qa_usecase_step";
DROP TABLE "qa_usecase_step";
ALTER TABLE "new_qa_usecase_step" RENAME TO "qa_usecase_step";
CREATE UNIQUE INDEX "qa_usecase_step_record_uuid_key" ON "qa_usecase_step"("record_uuid");
CREATE INDEX "qa_usecase_step_usecase_id_idx" ON "qa_usecase_step"("usecase_id");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
