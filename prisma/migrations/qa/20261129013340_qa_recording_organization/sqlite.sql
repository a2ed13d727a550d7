-- qa recording organization (app qa)
-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_qa_recording" (
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
    "organization_id" TEXT,
    "finalised_at" DATETIME,
    "promoted_usecase_id" TEXT,
    CONSTRAINT "qa_recording_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "res_organization" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "qa_recording_promoted_usecase_id_fkey" FOREIGN KEY ("promoted_usecase_id") REFERENCES "qa_usecase" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_qa_recording" ("created_at_utc", "dbid", "finalised_at", "module", "name", "promoted_usecase_id", "record_uuid", "revision", "start_path", "started_by", "status", "updated_at_utc", "usecase_key") SELECT "created_at_utc", "dbid", "finalised_at", "module", "name", "promoted_usecase_id", "record_uuid", "revision", "start_path", "started_by", "status", "updated_at_utc", "usecase_key" FROM "qa_recording";
DROP TABLE "qa_recording";
ALTER TABLE "new_qa_recording" RENAME TO "qa_recording";
CREATE UNIQUE INDEX "qa_recording_record_uuid_key" ON "qa_recording"("record_uuid");
CREATE INDEX "qa_recording_organization_id_idx" ON "qa_recording"("organization_id");
CREATE INDEX "qa_recording_promoted_usecase_id_idx" ON "qa_recording"("promoted_usecase_id");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- existing recordings belong to the organization of the person who started them
UPDATE "qa_recording" SET "organization_id" = (SELECT "organization" FROM "res_user" WHERE "res_user"."record_uuid" = "qa_recording"."started_by") WHERE "started_by" IS NOT NULL;
