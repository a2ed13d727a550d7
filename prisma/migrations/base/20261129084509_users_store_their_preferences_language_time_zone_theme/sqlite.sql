-- users store their preferences: language, time zone, theme (app base)
-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_res_user" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "password_hash" TEXT,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "role" TEXT NOT NULL DEFAULT 'user',
    "groups" JSONB,
    "organization" TEXT,
    "lang" TEXT NOT NULL DEFAULT 'en',
    "tz" TEXT,
    "theme" TEXT NOT NULL DEFAULT 'system',
    CONSTRAINT "res_user_organization_fkey" FOREIGN KEY ("organization") REFERENCES "res_organization" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_res_user" ("created_at_utc", "dbid", "email", "groups", "is_active", "name", "organization", "password_hash", "record_uuid", "revision", "role", "updated_at_utc") SELECT "created_at_utc", "dbid", "email", "groups", "is_active", "name", "organization", "password_hash", "record_uuid", "revision", "role", "updated_at_utc" FROM "res_user";
DROP TABLE "res_user";
ALTER TABLE "new_res_user" RENAME TO "res_user";
CREATE UNIQUE INDEX "res_user_record_uuid_key" ON "res_user"("record_uuid");
CREATE UNIQUE INDEX "res_user_email_key" ON "res_user"("email");
CREATE INDEX "res_user_organization_idx" ON "res_user"("organization");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
