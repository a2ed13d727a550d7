-- ai layer (app ai)
-- CreateTable
CREATE TABLE "ai_conversation" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "title" VARCHAR(200),
    "user_id" UUID NOT NULL,
    "skill_pack_id" UUID,
    "prompt_version_id" UUID,
    "provider" VARCHAR(64),
    "status" VARCHAR(64) NOT NULL DEFAULT 'open',
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "usd" DOUBLE PRECISION NOT NULL DEFAULT 0,

    CONSTRAINT "ai_conversation_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ai_message" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "conversation_id" UUID NOT NULL,
    "sequence" INTEGER NOT NULL,
    "role" VARCHAR(64) NOT NULL,
    "content" TEXT,
    "tool_calls" JSONB,
    "tool_call_id" VARCHAR(100),
    "tool_name" VARCHAR(100),
    "flags" JSONB,

    CONSTRAINT "ai_message_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ai_prompt_template" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "key" VARCHAR(100) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "description" TEXT,

    CONSTRAINT "ai_prompt_template_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ai_prompt_version" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "template_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "body" TEXT NOT NULL,
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "change_note" VARCHAR(255),

    CONSTRAINT "ai_prompt_version_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ai_provider_config" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "provider" VARCHAR(64) NOT NULL,
    "base_url" VARCHAR(500),
    "model" VARCHAR(100),
    "api_key" TEXT,
    "api_key_secret" TEXT,
    "input_usd_per_mtok" DOUBLE PRECISION,
    "output_usd_per_mtok" DOUBLE PRECISION,
    "is_active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "ai_provider_config_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ai_provider_routing" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" VARCHAR(200) NOT NULL,
    "sequence" INTEGER NOT NULL DEFAULT 10,
    "skill_pack_id" UUID,
    "role" VARCHAR(64),
    "provider" VARCHAR(64) NOT NULL,
    "model" VARCHAR(100),
    "is_active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "ai_provider_routing_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ai_safety_rule" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" VARCHAR(200) NOT NULL,
    "pattern" VARCHAR(500) NOT NULL,
    "applies_to" VARCHAR(64) NOT NULL DEFAULT 'input',
    "action" VARCHAR(64) NOT NULL DEFAULT 'block',
    "sequence" INTEGER NOT NULL DEFAULT 10,
    "is_active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "ai_safety_rule_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ai_skill_pack" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "key" VARCHAR(100) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "description" TEXT,
    "template_id" UUID NOT NULL,
    "tools" JSONB,
    "answer_schema" JSONB,
    "is_active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "ai_skill_pack_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ai_tool" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "name" VARCHAR(100) NOT NULL,
    "command" VARCHAR(200) NOT NULL,
    "app" VARCHAR(100),
    "kind" VARCHAR(64) NOT NULL,
    "read_only" BOOLEAN NOT NULL DEFAULT true,
    "description" TEXT,
    "input_schema" JSONB,
    "is_enabled" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "ai_tool_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ai_usage_log" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "day" VARCHAR(10) NOT NULL,
    "tenant_id" VARCHAR(100) NOT NULL,
    "principal_id" UUID,
    "conversation_id" UUID,
    "tool" VARCHAR(100),
    "provider" VARCHAR(64),
    "model" VARCHAR(100),
    "status" VARCHAR(64) NOT NULL DEFAULT 'reserved',
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "reserved_usd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "usd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "price_version" VARCHAR(64),
    "latency_ms" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "ai_usage_log_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ai_user_quota" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "user_id" UUID NOT NULL,
    "daily_usd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "daily_writes" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "ai_user_quota_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ai_write_proposal" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "token_hash" VARCHAR(64) NOT NULL,
    "conversation_id" UUID,
    "user_id" UUID NOT NULL,
    "tool" VARCHAR(100) NOT NULL,
    "command" VARCHAR(200) NOT NULL,
    "arguments" JSONB,
    "arguments_hash" VARCHAR(64) NOT NULL,
    "prompt_version_id" UUID,
    "summary" TEXT,
    "status" VARCHAR(64) NOT NULL DEFAULT 'pending',
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "executed_at" TIMESTAMPTZ(3),

    CONSTRAINT "ai_write_proposal_pkey" PRIMARY KEY ("dbid")
);

-- CreateTable
CREATE TABLE "ai_write_provenance" (
    "dbid" SERIAL NOT NULL,
    "record_uuid" UUID NOT NULL,
    "created_at_utc" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at_utc" TIMESTAMPTZ(3) NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "conversation_id" UUID,
    "proposal_id" UUID,
    "tool" VARCHAR(100) NOT NULL,
    "command" VARCHAR(200) NOT NULL,
    "prompt_version_id" UUID,
    "confirmed_by" UUID NOT NULL,
    "approval_case_id" VARCHAR(100),
    "target_model" VARCHAR(100),
    "target_id" UUID,
    "operation" VARCHAR(64),
    "before" JSONB,
    "after" JSONB,
    "day" VARCHAR(10) NOT NULL,
    "undone" BOOLEAN NOT NULL DEFAULT false,
    "undone_at" TIMESTAMPTZ(3),
    "undone_by" UUID,

    CONSTRAINT "ai_write_provenance_pkey" PRIMARY KEY ("dbid")
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

-- AddForeignKey
ALTER TABLE "ai_conversation" ADD CONSTRAINT "ai_conversation_skill_pack_id_fkey" FOREIGN KEY ("skill_pack_id") REFERENCES "ai_skill_pack"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ai_conversation" ADD CONSTRAINT "ai_conversation_prompt_version_id_fkey" FOREIGN KEY ("prompt_version_id") REFERENCES "ai_prompt_version"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ai_message" ADD CONSTRAINT "ai_message_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "ai_conversation"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ai_prompt_version" ADD CONSTRAINT "ai_prompt_version_template_id_fkey" FOREIGN KEY ("template_id") REFERENCES "ai_prompt_template"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ai_provider_routing" ADD CONSTRAINT "ai_provider_routing_skill_pack_id_fkey" FOREIGN KEY ("skill_pack_id") REFERENCES "ai_skill_pack"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ai_skill_pack" ADD CONSTRAINT "ai_skill_pack_template_id_fkey" FOREIGN KEY ("template_id") REFERENCES "ai_prompt_template"("record_uuid") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ai_usage_log" ADD CONSTRAINT "ai_usage_log_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "ai_conversation"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ai_write_proposal" ADD CONSTRAINT "ai_write_proposal_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "ai_conversation"("record_uuid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ai_write_provenance" ADD CONSTRAINT "ai_write_provenance_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "ai_conversation"("record_uuid") ON DELETE SET NULL ON UPDATE CASCADE;
