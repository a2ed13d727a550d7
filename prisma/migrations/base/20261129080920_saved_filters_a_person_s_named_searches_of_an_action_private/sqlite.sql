-- saved filters: a person's named searches of an action, private or shared with the organization (app base)
-- CreateTable
CREATE TABLE "ir_filter" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" TEXT NOT NULL,
    "action_key" TEXT NOT NULL,
    "search" JSONB NOT NULL,
    "user" TEXT NOT NULL,
    "organization" TEXT NOT NULL,
    "shared" BOOLEAN NOT NULL DEFAULT false,
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "ir_filter_user_fkey" FOREIGN KEY ("user") REFERENCES "res_user" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ir_filter_organization_fkey" FOREIGN KEY ("organization") REFERENCES "res_organization" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "ir_filter_record_uuid_key" ON "ir_filter"("record_uuid");

-- CreateIndex
CREATE INDEX "ir_filter_action_key_idx" ON "ir_filter"("action_key");

-- CreateIndex
CREATE INDEX "ir_filter_user_idx" ON "ir_filter"("user");

-- CreateIndex
CREATE INDEX "ir_filter_organization_idx" ON "ir_filter"("organization");
