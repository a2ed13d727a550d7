-- initial schema (app ai)
-- CreateTable
CREATE TABLE "ai_conversation" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "title" TEXT,
    "user_id" TEXT NOT NULL,
    "skill_pack_id" TEXT,
    "prompt_version_id" TEXT,
    "provider" TEXT,
    "status" TEXT NOT NULL DEFAULT 'open',
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "usd" REAL NOT NULL DEFAULT 0,
    CONSTRAINT "ai_conversation_skill_pack_id_fkey" FOREIGN KEY ("skill_pack_id") REFERENCES "ai_skill_pack" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "ai_conversation_prompt_version_id_fkey" FOREIGN KEY ("prompt_version_id") REFERENCES "ai_prompt_version" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ai_message" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "conversation_id" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "content" TEXT,
    "tool_calls" JSONB,
    "tool_call_id" TEXT,
    "tool_name" TEXT,
    "flags" JSONB,
    CONSTRAINT "ai_message_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "ai_conversation" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ai_prompt_template" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT
);

-- CreateTable
CREATE TABLE "ai_prompt_version" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "template_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "body" TEXT NOT NULL,
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "change_note" TEXT,
    CONSTRAINT "ai_prompt_version_template_id_fkey" FOREIGN KEY ("template_id") REFERENCES "ai_prompt_template" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ai_provider_config" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "provider" TEXT NOT NULL,
    "base_url" TEXT,
    "model" TEXT,
    "api_key" TEXT,
    "api_key_secret" TEXT,
    "input_usd_per_mtok" REAL,
    "output_usd_per_mtok" REAL,
    "is_active" BOOLEAN NOT NULL DEFAULT true
);

-- CreateTable
CREATE TABLE "ai_provider_routing" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL DEFAULT 10,
    "skill_pack_id" TEXT,
    "role" TEXT,
    "provider" TEXT NOT NULL,
    "model" TEXT,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    CONSTRAINT "ai_provider_routing_skill_pack_id_fkey" FOREIGN KEY ("skill_pack_id") REFERENCES "ai_skill_pack" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ai_safety_rule" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" TEXT NOT NULL,
    "pattern" TEXT NOT NULL,
    "applies_to" TEXT NOT NULL DEFAULT 'input',
    "action" TEXT NOT NULL DEFAULT 'block',
    "sequence" INTEGER NOT NULL DEFAULT 10,
    "is_active" BOOLEAN NOT NULL DEFAULT true
);

-- CreateTable
CREATE TABLE "ai_skill_pack" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "template_id" TEXT NOT NULL,
    "tools" JSONB,
    "answer_schema" JSONB,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    CONSTRAINT "ai_skill_pack_template_id_fkey" FOREIGN KEY ("template_id") REFERENCES "ai_prompt_template" ("record_uuid") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ai_tool" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" TEXT NOT NULL,
    "command" TEXT NOT NULL,
    "app" TEXT,
    "kind" TEXT NOT NULL,
    "read_only" BOOLEAN NOT NULL DEFAULT true,
    "description" TEXT,
    "input_schema" JSONB,
    "is_enabled" BOOLEAN NOT NULL DEFAULT true
);

-- CreateTable
CREATE TABLE "ai_usage_log" (
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

-- CreateTable
CREATE TABLE "ai_user_quota" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "user_id" TEXT NOT NULL,
    "daily_usd" REAL NOT NULL DEFAULT 0,
    "daily_writes" INTEGER NOT NULL DEFAULT 0
);

-- CreateTable
CREATE TABLE "ai_write_proposal" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "token_hash" TEXT NOT NULL,
    "conversation_id" TEXT,
    "user_id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "command" TEXT NOT NULL,
    "arguments" JSONB,
    "arguments_hash" TEXT NOT NULL,
    "prompt_version_id" TEXT,
    "summary" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "expires_at" DATETIME NOT NULL,
    "executed_at" DATETIME,
    CONSTRAINT "ai_write_proposal_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "ai_conversation" ("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ai_write_provenance" (
    "dbid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "record_uuid" TEXT NOT NULL,
    "created_at_utc" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" DATETIME NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "conversation_id" TEXT,
    "proposal_id" TEXT,
    "tool" TEXT NOT NULL,
    "command" TEXT NOT NULL,
    "prompt_version_id" TEXT,
    "confirmed_by" TEXT NOT NULL,
    "approval_case_id" TEXT,
    "target_model" TEXT,
    "target_id" TEXT,
    "operation" TEXT,
    "before" JSONB,
    "after" JSONB,
    "day" TEXT NOT NULL,
    "undone" BOOLEAN NOT NULL DEFAULT false,
    "undone_at" DATETIME,
    "undone_by" TEXT,
    CONSTRAINT "ai_write_provenance_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "ai_conversation" ("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "ai_conversation_record_uuid_key" ON "ai_conversation"("record_uuid");

-- CreateIndex
CREATE INDEX "ai_conversation_user_id_idx" ON "ai_conversation"("user_id");

-- CreateIndex
CREATE INDEX "ai_conversation_skill_pack_id_idx" ON "ai_conversation"("skill_pack_id");

-- CreateIndex
CREATE INDEX "ai_conversation_prompt_version_id_idx" ON "ai_conversation"("prompt_version_id");

-- CreateIndex
CREATE UNIQUE INDEX "ai_message_record_uuid_key" ON "ai_message"("record_uuid");

-- CreateIndex
CREATE INDEX "ai_message_conversation_id_idx" ON "ai_message"("conversation_id");

-- CreateIndex
CREATE UNIQUE INDEX "ai_prompt_template_record_uuid_key" ON "ai_prompt_template"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ai_prompt_template_key_key" ON "ai_prompt_template"("key");

-- CreateIndex
CREATE UNIQUE INDEX "ai_prompt_version_record_uuid_key" ON "ai_prompt_version"("record_uuid");

-- CreateIndex
CREATE INDEX "ai_prompt_version_template_id_idx" ON "ai_prompt_version"("template_id");

-- CreateIndex
CREATE UNIQUE INDEX "ai_prompt_version_template_id_version_key" ON "ai_prompt_version"("template_id", "version");

-- CreateIndex
CREATE UNIQUE INDEX "ai_provider_config_record_uuid_key" ON "ai_provider_config"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ai_provider_config_provider_key" ON "ai_provider_config"("provider");

-- CreateIndex
CREATE UNIQUE INDEX "ai_provider_routing_record_uuid_key" ON "ai_provider_routing"("record_uuid");

-- CreateIndex
CREATE INDEX "ai_provider_routing_skill_pack_id_idx" ON "ai_provider_routing"("skill_pack_id");

-- CreateIndex
CREATE UNIQUE INDEX "ai_safety_rule_record_uuid_key" ON "ai_safety_rule"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ai_skill_pack_record_uuid_key" ON "ai_skill_pack"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ai_skill_pack_key_key" ON "ai_skill_pack"("key");

-- CreateIndex
CREATE INDEX "ai_skill_pack_template_id_idx" ON "ai_skill_pack"("template_id");

-- CreateIndex
CREATE UNIQUE INDEX "ai_tool_record_uuid_key" ON "ai_tool"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ai_tool_name_key" ON "ai_tool"("name");

-- CreateIndex
CREATE UNIQUE INDEX "ai_usage_log_record_uuid_key" ON "ai_usage_log"("record_uuid");

-- CreateIndex
CREATE INDEX "ai_usage_log_day_idx" ON "ai_usage_log"("day");

-- CreateIndex
CREATE INDEX "ai_usage_log_principal_id_idx" ON "ai_usage_log"("principal_id");

-- CreateIndex
CREATE INDEX "ai_usage_log_conversation_id_idx" ON "ai_usage_log"("conversation_id");

-- CreateIndex
CREATE UNIQUE INDEX "ai_user_quota_record_uuid_key" ON "ai_user_quota"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ai_user_quota_user_id_key" ON "ai_user_quota"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "ai_write_proposal_record_uuid_key" ON "ai_write_proposal"("record_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ai_write_proposal_token_hash_key" ON "ai_write_proposal"("token_hash");

-- CreateIndex
CREATE INDEX "ai_write_proposal_conversation_id_idx" ON "ai_write_proposal"("conversation_id");

-- CreateIndex
CREATE INDEX "ai_write_proposal_user_id_idx" ON "ai_write_proposal"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "ai_write_provenance_record_uuid_key" ON "ai_write_provenance"("record_uuid");

-- CreateIndex
CREATE INDEX "ai_write_provenance_conversation_id_idx" ON "ai_write_provenance"("conversation_id");

-- CreateIndex
CREATE INDEX "ai_write_provenance_proposal_id_idx" ON "ai_write_provenance"("proposal_id");

-- CreateIndex
CREATE INDEX "ai_write_provenance_confirmed_by_idx" ON "ai_write_provenance"("confirmed_by");

-- CreateIndex
CREATE INDEX "ai_write_provenance_day_idx" ON "ai_write_provenance"("day");
