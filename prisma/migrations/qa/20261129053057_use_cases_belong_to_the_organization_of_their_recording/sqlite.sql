-- use cases belong to the organization of their recording (app qa)
-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_qa_usecase" (
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
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "organization_id" TEXT,
    CONSTRAINT "qa_usecase_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "res_organization" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_qa_usecase" ("created_at_utc", "dbid", "is_active", "key", "module", "name", "record_uuid", "recording_id", "replay_role", "revision", "source", "start_path", "updated_at_utc", "variables", "version") SELECT "created_at_utc", "dbid", "is_active", "key", "module", "name", "record_uuid", "recording_id", "replay_role", "revision", "source", "start_path", "updated_at_utc", "variables", "version" FROM "qa_usecase";
DROP TABLE "qa_usecase";
ALTER TABLE "new_qa_usecase" RENAME TO "qa_usecase";
CREATE UNIQUE INDEX "qa_usecase_record_uuid_key" ON "qa_usecase"("record_uuid");
CREATE UNIQUE INDEX "qa_usecase_key_key" ON "qa_usecase"("key");
CREATE INDEX "qa_usecase_organization_id_idx" ON "qa_usecase"("organization_id");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
