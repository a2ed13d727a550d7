-- drop ai usage log tool (app ai)
-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ai_usage_log" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "day" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "principal_id" TEXT,
    "conversation_id" TEXT,
    "provider" TEXT,
    "model" TEXT,
    "status" TEXT NOT NULL DEFAULT 'reserved',
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "reserved_usd" REAL NOT NULL DEFAULT 0,
    "usd" REAL NOT NULL DEFAULT 0,
    "price_version" TEXT,
    "latency_ms" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "ai_usage_log_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "ai_conversation" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_ai_usage_log" ("conversation_id", "created_at_utc", "day", "dbid", "input_tokens", "latency_ms", "model", "output_tokens", "price_version", "principal_id", "provider", "record_uuid", "reserved_usd", "revision", "status", "tenant_id", "updated_at_utc", "usd") SELECT "conversation_id", "created_at_utc", "day", "dbid", "input_tokens", "latency_ms", "model", "output_tokens", "price_version", "principal_id", "provider", "record_uuid", "reserved_usd", "revision", "status", "tenant_id", "updated_at_utc", "usd" FROM "ai_usage_log";
DROP TABLE "ai_usage_log";
ALTER TABLE "new_ai_usage_log" RENAME TO "ai_usage_log";
CREATE UNIQUE INDEX "ai_usage_log_record_uuid_key" ON "ai_usage_log"("record_uuid");
CREATE INDEX "ai_usage_log_day_idx" ON "ai_usage_log"("day");
CREATE INDEX "ai_usage_log_principal_id_idx" ON "ai_usage_log"("principal_id");
CREATE INDEX "ai_usage_log_conversation_id_idx" ON "ai_usage_log"("conversation_id");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
