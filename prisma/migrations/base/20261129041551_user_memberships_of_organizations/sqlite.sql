-- user memberships of organizations (app base)
-- CreateTable
CREATE TABLE "res_user_membership" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "user" TEXT NOT NULL,
    "organization" TEXT NOT NULL,
    CONSTRAINT "res_user_membership_user_fkey" FOREIGN KEY ("user") REFERENCES "res_user" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "res_user_membership_organization_fkey" FOREIGN KEY ("organization") REFERENCES "res_organization" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "res_user_membership_record_uuid_key" ON "res_user_membership"("record_uuid");

-- CreateIndex
CREATE INDEX "res_user_membership_user_idx" ON "res_user_membership"("user");

-- CreateIndex
CREATE INDEX "res_user_membership_organization_idx" ON "res_user_membership"("organization");
